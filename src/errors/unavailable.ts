import type { Response } from 'express';
import { DomainError } from './domain-error.js';

/**
 * node-postgres' words when no connection came in time (the pool's queue, or a new connection), or
 * when the server went away under one.
 */
const NO_CONNECTION = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout', 'Connection terminated unexpectedly'];

/** Socket failures reaching PostgreSQL: down, restarting, or unreachable for now. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);

export const RETRY_AFTER_SECONDS = 2;

/**
 * Whether `error` (or what it wraps) is a database connection that did not come within the
 * acquisition timeout, or could not be had at all (PostgreSQL down or restarting): a 503 the client
 * may retry, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (NO_CONNECTION.includes(current.message) || UNREACHABLE.has(String((current as { code?: unknown }).code))) return true;
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
