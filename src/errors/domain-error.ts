/** The failure kinds of the business core; each maps to one GraphQL code and one HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** A known path asked with a method it does not have (answered with `Allow`). */
  METHOD_NOT_ALLOWED: 405,
  /** `Accept` names no representation the resource has (a template preview is PNG or PDF). */
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  /** Public documents of a certificate withdrawn by its issuer (docs/public-lifecycle.md). */
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  RESPONSE_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BAD_USER_INPUT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Messages per input field, keyed by the field's GraphQL (camelCase) name. */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors?: FieldErrors,
    /** A machine-readable why, for clients that act on it (`PDF_ENCRYPTED`); answered as `reason` (REST) / `extensions.reason` (GraphQL). */
    readonly reason?: string,
    /** Identifiers a client can act on (`usedByCertificateUuid`); answered next to `reason`, snake_case over REST. */
    readonly details?: Record<string, string>,
  ) {
    // An answer to the client, not a fault: where it was thrown helps nobody. Its frames are not even
    // captured: formatting them (GraphQL copies `stack` into every error it wraps) cost more than the rest
    // of a refused request, and capturing them was still ~10 µs (28 µs under load), a tenth of the CPU of
    // a rate-limited client's 429 (docs/benchmarks.md, Neighbours).
    const answer = ERROR_STATUS[code] < 500;
    const frames = Error.stackTraceLimit;
    if (answer) Error.stackTraceLimit = 0;
    super(message);
    if (answer) Error.stackTraceLimit = frames;
    this.name = 'DomainError';
    if (answer) Object.defineProperty(this, 'stack', { value: `DomainError: ${message}`, writable: true, configurable: true });
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

export const notFound = (resource: string) => new DomainError('NOT_FOUND', `${resource} not found.`);

export const conflict = (message: string) => new DomainError('CONFLICT', message);

/** An answer that would pass the response budget (RESPONSE_MAX_BYTES): refused before it is built. */
export const responseTooLarge = (maxBytes: number) =>
  new DomainError('RESPONSE_TOO_LARGE', `The response would exceed ${maxBytes} bytes. Ask for fewer rows (first:, per_page) or fewer fields.`);

/** The first message plus a count of the rest, as Laravel summarises a 422. */
export function summarize(fieldErrors: FieldErrors, fallback = 'The given data was invalid.'): string {
  const messages = Object.values(fieldErrors).flat();
  if (messages.length === 0) return fallback;
  const more = messages.length > 1 ? ` (and ${messages.length - 1} more error${messages.length > 2 ? 's' : ''})` : '';
  return `${messages[0]}${more}`;
}

/** A 422 naming the offending fields, with a machine-readable reason when there is one. */
export function invalid(fieldErrors: FieldErrors, reason?: string, details?: Record<string, string>): DomainError {
  return new DomainError('BAD_USER_INPUT', summarize(fieldErrors), fieldErrors, reason, details);
}

/** One item's field errors inside a list input, keyed as Laravel keys array entries (`items.3.email`): for batch 422s. */
export function itemFieldErrors(list: string, index: number, errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`${list}.${index}.${field}`, messages]));
}
