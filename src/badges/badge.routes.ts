import { countEngagement } from '../engagement/engagement-recorder.js';
import { engagementSource } from '../engagement/engagement-source.js';
import { createHash } from 'node:crypto';
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import { issuerWithdrawn } from '../certificates/public-standing.js';
import type { Config } from '../config.js';
import type { PublicContextOf } from '../http/public-context.js';
import { contentDisposition, isFresh } from '../files/file-download.route.js';
import { SVG } from '../files/file-type.js';
import { badges, type BakedImage, GONE, type HostedAssertion } from './badge.service.js';
import { singleUpload } from '../http/single-upload.js';
import { BAKED_IMAGE_TYPES } from './badge-upload.js';
import { OB2_PATH, type BakedImageType } from './badge-urls.js';
import type { BadgeDocument } from './open-badges.js';
import { unbake, type UnbakeResult } from './unbake.js';
import { describeRoute, jsonError, type RouteContract, singleFileBody, TOO_MANY_REQUESTS } from '../http/route-contract.js';
import { rawUpload } from '../http/raw-upload.js';

const LD_DOCUMENT = { type: 'object', description: 'An Open Badges 2.0 JSON-LD document.' };
const documentContent = { 'application/ld+json': LD_DOCUMENT, 'application/json': LD_DOCUMENT };
const IMAGE = { type: 'string', format: 'binary' };

/** A public Open Badges 2.0 read at the `id` a document carries. */
const hosted = (path: string, summary: string, responses: RouteContract['responses']) =>
  describeRoute({
    method: 'get',
    base: '',
    path: `${OB2_PATH}${path}`,
    tag: 'open badges',
    summary,
    description: 'Public (no token, no tenant), readable cross-origin; JSON-LD unless only `application/json` is accepted.',
    responses: {
      ...responses,
      404: jsonError('Unknown, or the institution has badges off.'),
      410: jsonError('Withdrawn: the institution (or, for an assertion, the certificate) was deleted.'),
      429: TOO_MANY_REQUESTS,
    },
  });

export const HOSTED_BADGE_ROUTES = {
  issuer: hosted('/issuers/:uuid', 'Issuer profile', {
    200: { description: 'The issuer profile.', content: documentContent },
    303: { description: "A browser (`Accept: text/html`) goes to the institution's website." },
  }),
  revocations: hosted('/issuers/:uuid/revocations', "The issuer's revocation list", { 200: { description: 'The revocation list.', content: documentContent } }),
  badgeClass: hosted('/badges/:uuid', 'Badge class (one per course)', { 200: { description: 'The badge class.', content: documentContent } }),
  assertion: hosted('/assertions/:uuid', 'Assertion (hosted verification)', {
    200: { description: 'The assertion.', content: documentContent },
    303: { description: 'A browser goes to the verification page.' },
    410: { description: 'Revoked or withdrawn (deleted): the assertion with `revoked: true`.', content: documentContent },
  }),
  pngImage: hosted('/assertions/:uuid/image.png', 'Baked PNG badge', {
    200: { description: 'The PNG with the assertion baked in.', content: { 'image/png': IMAGE } },
  }),
  svgImage: hosted('/assertions/:uuid/image.svg', 'Baked SVG badge', {
    200: { description: 'The SVG with the assertion baked in.', content: { 'image/svg+xml': IMAGE } },
  }),
  image: hosted('/assertions/:uuid/image', "Baked badge in the badge image's own format", { 302: { description: 'To `image.png` or `image.svg`.' } }),
};

const UNBAKE_RESULT = {
  type: 'object',
  properties: {
    image_type: { type: 'string', enum: ['png', 'svg'] },
    assertion_id: { type: 'string' },
    status: { type: 'string' },
    revocation_reason: { type: ['string', 'null'] },
    matches_hosted: { type: 'boolean' },
    mismatched_properties: { type: 'array', items: { type: 'string' } },
    baked_assertion: { type: 'object' },
    hosted_assertion: { type: ['object', 'null'] },
  },
};

export const UNBAKE_ROUTE = describeRoute({
  method: 'post',
  base: '/api/v1',
  path: '/badges/unbake',
  tag: 'open badges',
  summary: 'Read a baked badge image',
  description: 'Public. Which assertion a baked PNG or SVG carries, its status, and whether it was altered after baking.',
  requestBody: singleFileBody(['image/png', 'image/svg+xml'], 'The baked image, raw or as the file of a multipart form.'),
  responses: {
    200: {
      description: 'What the image carries.',
      content: { 'application/json': { type: 'object', properties: { data: UNBAKE_RESULT }, required: ['data'] } },
    },
    400: jsonError('Unreadable body.'),
    413: jsonError('Over BADGE_UNBAKE_MAX_BYTES.'),
    415: jsonError('Neither PNG, SVG nor a multipart form.'),
    422: {
      description: 'No baked assertion in the image, or reading it took longer than BADGE_VERIFY_TIMEOUT_MS (`reason: PROCESSING_LIMIT`).',
      content: { 'application/json': { $ref: '#/components/schemas/ValidationError' } },
    },
    429: TOO_MANY_REQUESTS,
    503: jsonError('Every badge worker is busy; `Retry-After` says when to come back.'),
  },
});

const JSON_LD = 'application/ld+json';

/** Open Badges "Setting Content-Type": JSON-LD by default, plain JSON when only that is asked for; or a browser's HTML. */
function negotiate(req: Request): 'application/ld+json' | 'application/json' | 'html' {
  const choice = req.accepts([JSON_LD, 'application/json', 'text/html']);
  return choice === 'text/html' ? 'html' : choice === 'application/json' ? choice : JSON_LD;
}

const etagOf = (...parts: (string | Buffer)[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `"${hash.digest('base64url').slice(0, 32)}"`;
};

/** Caches revalidate every time (a revocation shows at once). */
function publicHeaders(res: Response, etag: string): void {
  res.set({ ETag: etag, 'Cache-Control': 'public, no-cache', Vary: 'Accept' });
}

export function sendDocument(req: Request, res: Response, document: BadgeDocument, status = 200): void {
  const type = negotiate(req) === 'application/json' ? 'application/json' : JSON_LD;
  const body = JSON.stringify(document);
  const etag = etagOf(type, body);
  publicHeaders(res, etag);
  res.type(`${type}; charset=utf-8`);
  if (status === 200 && isFresh(req, etag)) {
    res.status(304).end();
    return;
  }
  res.status(status).send(body);
}

function sendAssertion(req: Request, res: Response, answer: HostedAssertion): void {
  // Hosted verification: a revoked assertion answers 410 Gone with `revoked: true`.
  sendDocument(req, res, answer.document, answer.revoked ? 410 : 200);
}

export function sendImage(req: Request, res: Response, image: BakedImage, name: string): void {
  const etag = etagOf(image.bytes);
  publicHeaders(res, etag);
  res.set({ 'Content-Type': image.mimeType, 'Content-Disposition': contentDisposition(name), 'X-Content-Type-Options': 'nosniff' });
  // An SVG opened directly is a document that could run script on this origin.
  if (image.mimeType === SVG.mimeType) res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  if (isFresh(req, etag)) res.status(304).end();
  else res.status(200).send(image.bytes);
}

/** An async handler whose null answer is the app's plain 404. */
export function route(handler: (req: Request<{ uuid: string }>, res: Response) => Promise<boolean>): RequestHandler<{ uuid: string }> {
  return async (req, res, next: NextFunction) => {
    try {
      if (!(await handler(req, res))) next();
    } catch (error) {
      next(error);
    }
  };
}

function bakedImageRoute(publicContext: PublicContextOf, type: BakedImageType): RequestHandler<{ uuid: string }> {
  return route(async (req, res) => {
    const ctx = publicContext(req);
    const answer = await badges.bakedImage(ctx, req.params.uuid, type);
    if (!answer) return false;
    if ('document' in answer) sendAssertion(req, res, answer);
    else {
      countEngagement(engagementSource(ctx, req), req.params.uuid, 'badge_fetch');
      sendImage(req, res, answer, `badge-${req.params.uuid}.${type}`);
    }
    return true;
  });
}

/**
 * The hosted Open Badges 2.0 documents under /ob/v2, public (no token, no tenant) at the `id`s they
 * carry: issuer profiles, badge classes, assertions (410 once revoked), revocation lists, baked images.
 * Cross-origin reads: publicDocumentCors (src/http/cors.ts).
 */
export function hostedBadgeRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    HOSTED_BADGE_ROUTES.issuer.path,
    route(async (req, res) => {
      const document = await badges.issuer(publicContext(req), req.params.uuid);
      if (!document) return false;
      if (document === GONE) throw issuerWithdrawn();
      // A browser goes to the institution's own site when it has one; otherwise it reads the profile.
      const site = document.url as string;
      if (negotiate(req) === 'html' && site !== document.id && /^https?:\/\//i.test(site)) res.redirect(303, site);
      else sendDocument(req, res, document);
      return true;
    }),
  );
  router.get(
    HOSTED_BADGE_ROUTES.revocations.path,
    route(async (req, res) => {
      const document = await badges.revocationList(publicContext(req), req.params.uuid);
      if (document === GONE) throw issuerWithdrawn();
      if (document) sendDocument(req, res, document);
      return document !== null;
    }),
  );
  router.get(
    HOSTED_BADGE_ROUTES.badgeClass.path,
    route(async (req, res) => {
      const document = await badges.badgeClass(publicContext(req), req.params.uuid);
      if (document === GONE) throw issuerWithdrawn();
      if (document) sendDocument(req, res, document);
      return document !== null;
    }),
  );
  router.get(
    HOSTED_BADGE_ROUTES.assertion.path,
    route(async (req, res) => {
      const answer = await badges.assertion(publicContext(req), req.params.uuid);
      if (!answer) return false;
      if (negotiate(req) === 'html') res.redirect(303, answer.verificationPage);
      else sendAssertion(req, res, answer);
      return true;
    }),
  );
  router.get(HOSTED_BADGE_ROUTES.pngImage.path, bakedImageRoute(publicContext, 'png'));
  router.get(HOSTED_BADGE_ROUTES.svgImage.path, bakedImageRoute(publicContext, 'svg'));
  // The e-mail's download link: the baked image in whichever format the institution's badge image has.
  router.get(
    HOSTED_BADGE_ROUTES.image.path,
    route(async (req, res) => {
      const url = await badges.bakedImageUrl(publicContext(req), req.params.uuid);
      if (url) res.redirect(302, url);
      return url !== null;
    }),
  );
  return router;
}

function unbakeJson(result: UnbakeResult) {
  return {
    image_type: result.imageType,
    assertion_id: result.assertionId,
    status: result.status,
    revocation_reason: result.revocationReason,
    matches_hosted: result.matchesHosted,
    mismatched_properties: result.mismatchedProperties,
    baked_assertion: result.bakedAssertion,
    hosted_assertion: result.hostedAssertion,
  };
}

/** POST /api/v1/badges/unbake (public): which assertion a baked PNG or SVG carries, its status, and whether it was altered. */
export function unbakeRoutes(publicContext: PublicContextOf, config: Pick<Config, 'badgeUnbakeMaxBytes'>): Router {
  const router = Router();
  const maxBytes = config.badgeUnbakeMaxBytes;
  router.post(UNBAKE_ROUTE.path, rawUpload({ type: BAKED_IMAGE_TYPES, limit: maxBytes }), async (req, res, next) => {
    try {
      const image = await singleUpload(req, maxBytes, 'Send the baked badge as image/png, image/svg+xml or a multipart form file.');
      res.json({ data: unbakeJson(await unbake(publicContext(req), image)) });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
