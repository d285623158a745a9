import type { Response } from 'express';

/**
 * A REST result as JSON, like `res.json` but without Express's automatic ETag: that would hash every
 * body (tens of KB for a page) after it was computed anyway, for a conditional GET no client of the
 * API is promised. GraphQL answers carry none either; the public badge routes set their own.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res
    .status(status)
    .set('Content-Type', 'application/json; charset=utf-8')
    .set('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}
