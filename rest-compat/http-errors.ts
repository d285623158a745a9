import type { ErrorRequestHandler, Response } from 'express';
import { type ClassifiedError } from '../src/errors/classify.js';
import { DomainError, ERROR_STATUS } from '../src/errors/domain-error.js';
import { JsonTooDeepError } from '../src/http/json-body.js';
import { noteErrorCodes } from '../src/http/request-record.js';
import type { Logger } from '../src/logger.js';
import { isDatabaseUnavailable, serviceBusy, setRetryAfter } from '../src/errors/unavailable.js';
import { toSnake } from './case.js';

/** Laravel-shaped body: `{message}`, plus `errors` per snake_case field for a 422. */
export function sendError(res: Response, { code, message, fieldErrors, reason, details }: Omit<ClassifiedError, 'internal'>): void {
  const status = ERROR_STATUS[code];
  noteErrorCodes(res, [code]);
  // A 503 is a momentary lack of capacity (no database connection, document workers busy): say when to come back.
  if (status === 503) setRetryAfter(res);
  const body: Record<string, unknown> = { message: status === 500 ? 'Server Error' : message };
  if (status === 422) {
    body.errors = Object.fromEntries(Object.entries(fieldErrors ?? {}).map(([field, messages]) => [field.split('.').map(toSnake).join('.'), messages]));
  }
  if (reason) body.reason = reason;
  for (const [key, value] of Object.entries(details ?? {})) body[toSnake(key)] = value;
  res.status(status).json(body);
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Last handler of the REST router and the app: no stack trace ever leaves the process. */
export function restErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof DomainError) return sendError(res, error);
    if (isDatabaseUnavailable(error)) return sendError(res, serviceBusy());
    const parserError = error as BodyParserError;
    if (parserError.type === 'entity.parse.failed') return sendError(res, { code: 'BAD_REQUEST', message: 'The request body is not valid JSON.' });
    if (error instanceof JsonTooDeepError) return sendError(res, { code: 'BAD_REQUEST', message: error.message });
    if (parserError.type === 'entity.too.large') return sendError(res, { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' });
    if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
      return sendError(res, { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported request body encoding.' });
    }
    if (parserError.status && parserError.status >= 400 && parserError.status < 500) {
      return sendError(res, { code: 'BAD_REQUEST', message: 'The request could not be read.' });
    }
    logger.error({ err: error, requestId: req.id }, 'request failed');
    sendError(res, { code: 'INTERNAL_SERVER_ERROR', message: 'Server Error' });
  };
}
