import { GraphQLError } from 'graphql';
import { DomainError, type ErrorCode, type FieldErrors, isErrorCode, summarize } from './domain-error.js';
import { isAtCapacity, isDatabaseUnavailable, RETRY_AFTER_SECONDS, serviceBusy } from './unavailable.js';

/** What a client is told about a failure, before a transport shapes it. */
export interface ClassifiedError {
  code: ErrorCode;
  message: string;
  fieldErrors?: FieldErrors;
  /** The DomainError's machine-readable reason (why a document was refused), passed on to the client. */
  reason?: string;
  /** The DomainError's identifiers for the client (`usedByCertificateUuid`). */
  details?: Record<string, string>;
  /** True for failures that are our bug, not the client's: logged, never detailed to the client. */
  internal: boolean;
}

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

function validationFieldErrors(errors: ValidationErrorLike[], prefix = ''): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) result[field] = Object.values(error.constraints);
    Object.assign(result, validationFieldErrors(error.children ?? [], field));
  }
  return result;
}

/**
 * One classification of any error raised while serving a request, in either style: the core's
 * DomainErrors as they are; a busy service (no database connection, every worker busy) as
 * SERVICE_UNAVAILABLE; GraphQL's own document errors by their code; anything else internal.
 */
export function classifyError(error: unknown): ClassifiedError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof DomainError) {
    const { code, message, fieldErrors, reason, details } = original;
    return { code, message, fieldErrors, ...(reason ? { reason } : {}), ...(details ? { details } : {}), internal: false };
  }
  if (isAtCapacity(original)) return { code: 'SERVICE_UNAVAILABLE', message: original.message, internal: false };
  if (isDatabaseUnavailable(original)) return { code: 'SERVICE_UNAVAILABLE', message: serviceBusy().message, internal: false };
  if (!(error instanceof GraphQLError)) {
    return { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.', internal: true };
  }
  const validation = (error.extensions?.validationErrors ?? (original as { extensions?: { validationErrors?: unknown } })?.extensions?.validationErrors) as
    ValidationErrorLike[] | undefined;
  if (validation) {
    const fieldErrors = validationFieldErrors(validation);
    return { code: 'BAD_USER_INPUT', message: summarize(fieldErrors), fieldErrors, internal: false };
  }
  const code = error.extensions?.code;
  if (!error.originalError || original instanceof GraphQLError) {
    // Parse/validation errors of the document itself, raised by graphql-js, carry no internals.
    if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN' || code === 'NOT_FOUND' || code === 'BAD_USER_INPUT') {
      return { code, message: error.message, internal: false };
    }
    if (code === undefined || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'GRAPHQL_PARSE_FAILED' || code === 'OPERATION_RESOLUTION_FAILURE') {
      return { code: 'BAD_REQUEST', message: error.message, internal: false };
    }
    if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') return { code, message: error.message, internal: false };
  }
  return { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.', internal: true };
}

/**
 * The HTTP headers an error's answer carries, in every style: a 503 says when to come back; a 401
 * names the scheme (RFC 6750 §3), with `invalid_token` when a token was sent but is not usable.
 */
export function errorHeaders(code: ErrorCode, credentials: 'none' | 'bearer' | 'client'): Record<string, string> {
  if (code === 'SERVICE_UNAVAILABLE') return { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  if (code !== 'UNAUTHENTICATED') return {};
  if (credentials === 'client') return { 'WWW-Authenticate': 'Basic realm="credential-service"' };
  return { 'WWW-Authenticate': credentials === 'bearer' ? 'Bearer error="invalid_token"' : 'Bearer' };
}
