import type { Request, RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';
import { PAGE_STYLE_SOURCE } from '../pages/page-style.js';

const NONE = ["'none'"];

// Nothing here may be framed, set a base URL or receive a form post, whatever else a page needs.
const LOCKED = { baseUri: NONE, formAction: NONE, frameAncestors: NONE };

/**
 * helmet on every response (JSON included): a CSP that allows nothing, frames refused, nosniff,
 * no referrer, HSTS only when the public URL is https. Responses are readable cross-origin
 * (badge images, PDFs and verification JSON are embedded elsewhere; no response rides on cookies).
 */
export function securityHeaders({ publicBaseUrl }: Pick<Config, 'publicBaseUrl'>): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: NONE, ...LOCKED } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    // includeSubDomains stays off: the service's host may share its parent domain with other sites.
    strictTransportSecurity: new URL(publicBaseUrl).protocol === 'https:' ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });
}

/**
 * Every public HTML page (verification, PDF check, portfolio, 404): its one inline stylesheet by hash,
 * images from this origin (badges), forms posting back here (the PDF check); no script, no
 * connection, no framing. A header value rather than middleware, so whatever sends a page sends it.
 */
export const PUBLIC_PAGE_POLICY = Object.entries({
  'default-src': NONE,
  'style-src': [PAGE_STYLE_SOURCE],
  'img-src': ["'self'"],
  'form-action': ["'self'"],
  'base-uri': NONE,
  'frame-ancestors': NONE,
})
  .map(([directive, sources]) => `${directive} ${sources.join(' ')}`)
  .join('; ');

/**
 * The developer pages (/docs' Swagger UI, /graphiql): scripts and styles from this origin only (their
 * editors write style attributes, hence 'unsafe-inline' for styles), images and fonts from here or data:
 * URLs, requests (the fetcher, "Try it out", the token) to this origin only. Nothing comes from
 * elsewhere, so both work offline.
 */
export const DEVELOPER_PAGE_POLICY = Object.entries({
  'default-src': NONE,
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': NONE,
  'form-action': NONE,
  'frame-ancestors': NONE,
})
  .map(([directive, sources]) => `${directive} ${sources.join(' ')}`)
  .join('; ');

const sandboxPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: { defaultSrc: helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc, objectSrc: NONE, ...LOCKED },
});

/**
 * Apollo Sandbox (development only) loads its scripts, styles and iframe from Apollo's CDN under its
 * own `<meta>` CSP with a nonce drawn per render; a header policy cannot name that nonce, so for the
 * landing page the header keeps only what a meta policy cannot say (framing, base, plugins).
 */
export function sandboxLandingPolicy(isLandingPage: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => (isLandingPage(req) ? sandboxPolicy(req, res, next) : next());
}
