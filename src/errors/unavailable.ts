import type { Response } from 'express';
import { DomainError } from './domain-error.js';

/** node-postgres' words when no connection came in time: the pool's queue, or a new connection. */
const NO_CONNECTION = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'];

export const RETRY_AFTER_SECONDS = 2;

/** Whether `error` (or what it wraps) is a database connection that did not come within the acquisition timeout. */
export function isDatabaseBusy(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (NO_CONNECTION.includes(current.message)) return true;
    current =
      (current as { cause?: unknown; inner?: unknown; originalError?: unknown }).originalError ?? (current as { inner?: unknown }).inner ?? current.cause;
  }
  return false;
}

export function serviceBusy(): DomainError {
  return new DomainError('SERVICE_UNAVAILABLE', 'The service is busy; retry in a moment.');
}

/** Every 503 tells the client when to come back. */
export function setRetryAfter(res: Response): void {
  res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
}
