import type { ErrorRequestHandler, Request, Response } from 'express';
import { classifyError, type ClassifiedError, errorHeaders } from '../errors/classify.js';
import { ERROR_STATUS } from '../errors/domain-error.js';
import { snakeCase } from '../identifier-case.js';
import type { Logger } from '../logger.js';
import { JsonTooDeepError } from './json-body.js';
import { noteErrorCodes } from './request-record.js';

/**
 * How an error body is spelled: Laravel's (`{message}`, `errors` per snake_case field for a 422,
 * `reason` and details when the core gives them) for /api/v1 and the public JSON routes; OAuth's for
 * the token endpoint (RFC 6749 §5.2: `error` is the DomainError's reason, `error_description` its message,
 * and `message` too for Laravel-style clients).
 */
export type ErrorShape = 'laravel' | 'oauth';

export type ErrorAnswer = Omit<ClassifiedError, 'internal'>;

/**
 * An error answer's JSON, written as `res.json` would but without Express's ETag (a hash of every
 * body, for a conditional GET no error answer serves) and as one string, so headers and body leave in
 * one write: a rate-limited client's 429s come by the thousand a second (docs/benchmarks.md, Neighbours).
 */
export function sendErrorBody(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** The one writer of REST and public HTTP error answers: status, headers (Retry-After, WWW-Authenticate) and body. */
export function sendError(res: Response, { code, message, fieldErrors, reason, details }: ErrorAnswer, shape: ErrorShape = 'laravel'): void {
  const status = ERROR_STATUS[code];
  noteErrorCodes(res, [code]);
  res.set(errorHeaders(code, shape === 'oauth' ? 'client' : res.req.get('authorization') ? 'bearer' : 'none'));
  if (code === 'TOO_MANY_REQUESTS' && details?.retryAfter) res.set('Retry-After', details.retryAfter);
  const told = status === 500 ? 'Server Error' : message;
  if (shape === 'oauth') {
    res.set('Cache-Control', 'no-store');
    sendErrorBody(res, status, reason ? { error: reason, error_description: told, message: told } : { message: told });
    return;
  }
  const body: Record<string, unknown> = { message: told };
  if (status === 422) {
    body.errors = Object.fromEntries(Object.entries(fieldErrors ?? {}).map(([field, messages]) => [field.split('.').map(snakeCase).join('.'), messages]));
  }
  if (reason) body.reason = reason;
  for (const [key, value] of Object.entries(details ?? {})) body[snakeCase(key)] = value;
  sendErrorBody(res, status, body);
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** A request body the parsers could not read, as the client's error; undefined for anything else. */
function unreadableBody(error: unknown): ErrorAnswer | undefined {
  const parserError = error as BodyParserError;
  if (parserError.type === 'entity.parse.failed') return { code: 'BAD_REQUEST', message: 'The request body is not valid JSON.' };
  if (error instanceof JsonTooDeepError) return { code: 'BAD_REQUEST', message: error.message };
  if (parserError.type === 'entity.too.large') return { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' };
  if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
    return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported request body encoding.' };
  }
  if (parserError.status && parserError.status >= 400 && parserError.status < 500) return { code: 'BAD_REQUEST', message: 'The request could not be read.' };
  return undefined;
}

/**
 * Any failure of an HTTP route, classified once (src/errors/classify.ts) and answered by `sendError`;
 * our own bugs are logged with the request id and answered without internals.
 */
export function answerError(error: unknown, req: Request, res: Response, logger: Logger, shape: ErrorShape = 'laravel'): void {
  if (res.headersSent) return;
  const classified = classifyError(error);
  if (!classified.internal) return sendError(res, classified, shape);
  const unreadable = unreadableBody(error);
  if (unreadable) return sendError(res, unreadable, shape);
  logger.error({ err: error, requestId: req.id }, 'request failed');
  sendError(res, { code: 'INTERNAL_SERVER_ERROR', message: 'Server Error' }, shape);
}

/** The last error handler of the app and of the REST router. */
export function httpErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => answerError(error, req, res, logger);
}
