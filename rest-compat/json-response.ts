import type { Response } from 'express';
import { responseTooLarge } from '../src/errors/domain-error.js';
import { jsonSlicesWithin } from '../src/http/json-text.js';
import { sendError } from '../src/http/error-response.js';
import { sendSlices } from '../src/http/send-slices.js';

/**
 * A REST result as JSON, like `res.json` but without Express's automatic ETag: that would hash every
 * body (tens of KB for a page) after it was computed anyway, for a conditional GET no client of the
 * API is promised. GraphQL answers carry none either; the public badge routes set their own. The text
 * is written in slices within the response budget (src/http/json-text.ts) and sent as written: over it, a 413.
 */
export async function sendJson(res: Response, status: number, body: unknown, maxBytes: number): Promise<void> {
  const answer = await jsonSlicesWithin(body, maxBytes);
  if (answer === undefined) return sendError(res, responseTooLarge(maxBytes));
  res.status(status).set('Content-Type', 'application/json; charset=utf-8').set('Content-Length', String(answer.bytes));
  // Slice by slice: a large answer is never joined into one string, nor encoded in one go.
  await sendSlices(res, answer.slices);
}
