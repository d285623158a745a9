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
 * The public documents every verifier, wallet and badge displayer reads from its own page: Open Badges
 * 2.0 and 3.0 (documents, DID documents, status lists, achievements, baked images), CLR 2.0 transcripts and the files they
 * name as images. Public without a token, so readable from any origin whatever CORS_ORIGINS says.
 */
export const PUBLIC_DOCUMENT_PATHS = [
  '/ob',
  '/clr',
  '/.well-known/openid-credential-issuer',
  '/.well-known/oauth-authorization-server',
  '/oid4vci/offers',
  '/api/v1/files/:uuid/download',
];

const PUBLIC_DOCUMENT_PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, HEAD',
  'Access-Control-Allow-Headers': 'Accept, Accept-Language, If-None-Match',
  'Access-Control-Max-Age': '86400',
};

/** Mounted on PUBLIC_DOCUMENT_PATHS, before everything else that could answer them (rate limits and 404s included). */
export const publicDocumentCors: RequestHandler = (req, res, next) => {
  res.locals.publicDocument = true;
  res.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(',') });
  // A preflight names the method it asks for; a plain OPTIONS is left to the 405 handler (Allow).
  if (req.method !== 'OPTIONS' || !req.get('access-control-request-method')) return next();
  res.set(PUBLIC_DOCUMENT_PREFLIGHT).status(204).end();
};

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
  // Public documents under /api (file downloads) keep publicDocumentCors's answer.
  return (req, res, next) => (req.get('origin') === undefined || res.locals.publicDocument ? next() : policy(req, res, next));
}
