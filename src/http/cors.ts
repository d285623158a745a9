import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';

/** What a browser script may read of an answer besides the simple headers. */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Location',
  'Allow',
  'ETag',
  'Content-Disposition',
  'X-Request-Id',
  'Idempotent-Replayed',
];

/** What a browser script may send: the token, the tenant, JSON bodies, idempotency keys; Apollo's CSRF headers for /graphql. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Tenant',
  'Idempotency-Key',
  'X-Request-Id',
  'If-None-Match',
  'Accept-Language',
  'Apollo-Require-Preflight',
  'X-Apollo-Operation-Name',
];

/**
 * CORS for the APIs (CORS_ORIGINS): `*` or a list of origins; off (no header at all) when unset.
 * A preflight is answered here, before authentication: it carries no token. No credentials mode:
 * the APIs take bearer tokens, never cookies.
 */
export function corsPolicy({ corsOrigins }: Pick<Config, 'corsOrigins'>): RequestHandler | undefined {
  if (corsOrigins !== '*' && corsOrigins.length === 0) return undefined;
  const policy = cors({
    origin: corsOrigins === '*' ? '*' : corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  // Only browsers send Origin; a plain OPTIONS is left to the 405 handler, which answers it with Allow.
  return (req, res, next) => (req.get('origin') === undefined ? next() : policy(req, res, next));
}
