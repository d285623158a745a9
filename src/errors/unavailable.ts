import { DomainError } from './domain-error.js';

/**
 * node-postgres' words when no connection came in time (the pool's queue, or a new connection), or
 * when the server went away under one (a query on a client whose connection already failed among them).
 */
const NO_CONNECTION = [
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
];

/** Socket failures reaching PostgreSQL: down, restarting, or unreachable for now. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);

/**
 * SQLSTATEs of a statement PostgreSQL ended for reasons of its own, not the request's: a statement
 * timeout or cancel (57014), an administrator or crash ending the session (57P01, 57P02: a shutdown
 * or restart), a server starting or stopping (57P03), no connection slot (53300), and the connection
 * exception class (08…). The request is fine; asked again in a moment it may succeed.
 */
const TRANSIENT_SQLSTATES = new Set(['57014', '57P01', '57P02', '57P03', '53300']);
const CONNECTION_EXCEPTION_CLASS = '08';

export const RETRY_AFTER_SECONDS = 2;

function isTransient(error: Error): boolean {
  const code = String((error as { code?: unknown }).code);
  return UNREACHABLE.has(code) || TRANSIENT_SQLSTATES.has(code) || (code.length === 5 && code.startsWith(CONNECTION_EXCEPTION_CLASS));
}

/**
 * Whether `error` (or what it wraps) is a database connection that did not come within the
 * acquisition timeout, could not be had at all (PostgreSQL down or restarting), or a statement
 * PostgreSQL ended on its own (timeout, shutdown): a 503 the client may retry, not a 500. The one
 * home of "the database is unavailable"; every transport answers it with 503 and Retry-After.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (NO_CONNECTION.includes(current.message) || isTransient(current)) return true;
    current =
      (current as { cause?: unknown; inner?: unknown; originalError?: unknown }).originalError ?? (current as { inner?: unknown }).inner ?? current.cause;
  }
  return false;
}

/**
 * A part of the service at capacity for now (every worker thread busy) marks its refusal with
 * `atCapacity: true`; the classifier (classify.ts) answers it as a busy service, like a database
 * that is unavailable: 503 with Retry-After.
 */
export function isAtCapacity(error: unknown): error is Error {
  return error instanceof Error && (error as { atCapacity?: unknown }).atCapacity === true;
}

export function serviceBusy(): DomainError {
  return new DomainError('SERVICE_UNAVAILABLE', 'The service is busy; retry in a moment.');
}
