import type { ContractResponse, JsonSchema } from '../../src/http/route-contract.js';

const integer = { type: 'integer' };

/** The headers of every authenticated answer: the client's per-minute limit, shared by every server process. */
export const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'X-RateLimit-Limit': { description: 'Requests this client may make in the current window (one minute).', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'X-RateLimit-Reset': { description: 'When the window resets, in Unix seconds.', schema: integer },
};

/** Components every document has: the error envelopes (src/http/error-response.ts) and the paginator's parts (list-envelope.ts). */
export const SHARED_SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'Every error but a 422: Laravel-shaped.',
    properties: {
      message: { type: 'string' },
      reason: { type: 'string', description: 'A machine-readable why, when the core gives one (`PDF_ENCRYPTED`, `PDF_UNREADABLE`, ...).' },
    },
    required: ['message'],
    examples: [{ message: 'Not found.' }],
  },
  ValidationError: {
    type: 'object',
    description: 'A 422: every failing field at once, under its snake_case name (nested fields dotted: `modules.0.order`).',
    properties: {
      message: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      reason: { type: 'string' },
    },
    required: ['message', 'errors'],
    examples: [{ message: 'The name field is required.', errors: { name: ['The name field is required.'] } }],
  },
  PaginationMeta: {
    type: 'object',
    description:
      'With page numbers: `current_page`, `per_page`, `total`, `total_is_estimate`, `last_page`. With `cursor`: `per_page`, `total`, `total_is_estimate`, `next_cursor`, `prev_cursor`.',
    properties: {
      current_page: integer,
      per_page: integer,
      total: { ...integer, description: 'Exact up to 10,000 rows of a filtered list; past that the planner’s estimate (`total_is_estimate`).' },
      total_is_estimate: { type: 'boolean', description: 'Whether `total` (and so `last_page`) is an estimate.' },
      last_page: integer,
      next_cursor: { type: ['string', 'null'] },
      prev_cursor: { type: ['string', 'null'] },
    },
    required: ['per_page', 'total', 'total_is_estimate'],
  },
  PaginationLinks: {
    type: 'object',
    description: 'Absolute URLs keeping the other query parameters.',
    properties: {
      first: { type: 'string', format: 'uri' },
      last: { type: ['string', 'null'], format: 'uri', description: 'null with `cursor`.' },
      prev: { type: ['string', 'null'], format: 'uri' },
      next: { type: ['string', 'null'], format: 'uri' },
    },
    required: ['first', 'last', 'prev', 'next'],
  },
};

const error = (description: string, example: Record<string, unknown>): ContractResponse & { content: Record<string, JsonSchema> } => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
});

/** The error answers a route can give, by what it does (see the CONTRACT's error table). */
export function errorResponses(route: { authenticated: boolean; item: boolean; validates: boolean; conflicts: boolean; upload: boolean }) {
  return {
    ...(route.authenticated
      ? {
          400: error('Malformed body, or the `X-Tenant` header is missing.', { message: 'The X-Tenant header is required.' }),
          401: error('No, an invalid, expired or revoked token.', { message: 'Unauthenticated.' }),
          403: error("`X-Tenant` is not the token's tenant.", { message: 'This token is not valid for the requested tenant.' }),
        }
      : {}),
    ...(route.item ? { 404: error('Unknown uuid, or one of another tenant.', { message: 'Not found.' }) } : {}),
    ...(route.conflicts
      ? { 409: error("The record's state does not allow this (an issued certificate, a used file).", { message: 'Issued certificates cannot be changed.' }) }
      : {}),
    ...(route.upload
      ? {
          413: error('A file over the size limit.', { message: 'The file is too large.' }),
          415: error('Content that is not an accepted type (checked by its bytes).', { message: 'Unsupported file type.' }),
        }
      : {}),
    ...(route.validates
      ? { 422: { description: 'Validation failed.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } } }
      : {}),
    429: {
      ...error('Rate limit reached; `Retry-After` says when to come back.', { message: 'Too Many Attempts.' }),
      headers: { 'Retry-After': { description: 'Seconds until the window resets.', schema: integer }, ...(route.authenticated ? RATE_LIMIT_HEADERS : {}) },
    },
  };
}
