import { countEngagement } from '../../engagement/engagement-recorder.js';
import { engagementSource } from '../../engagement/engagement-source.js';
import { type Request, type Response, Router } from 'express';
import { anchorCheckJson } from '../../anchoring/anchor-json.js';
import { certificateWithdrawn, issuerWithdrawn } from '../../certificates/public-standing.js';
import type { Config } from '../../config.js';
import type { PublicContextOf } from '../../http/public-context.js';
import { singleUpload } from '../../http/single-upload.js';
import { BAKED_IMAGE_TYPES } from '../badge-upload.js';
import { route, sendDocument, sendImage } from '../badge.routes.js';
import type { BakedImageType } from '../badge-urls.js';
import { bakedCredential, type CredentialVerification, parseCredential, verifyCredential } from './credential-verification.js';
import { openBadgeCredentials } from './credential.service.js';
import { OB3_PATH } from './did-web.js';
import { describeRoute, jsonError, type RouteContract, TOO_MANY_REQUESTS } from '../../http/route-contract.js';
import { rawUpload } from '../../http/raw-upload.js';

const JSON_TYPES = ['application/json', 'application/ld+json', 'application/vc+ld+json', 'application/vc'];

/** A revocation shows to verifiers within this many seconds (Bitstring Status List caching). */
const STATUS_LIST_MAX_AGE = 30;

function sendJson(res: Response, document: object, type: string, cacheControl = 'public, no-cache'): void {
  res.set({ 'Cache-Control': cacheControl });
  res.type(`${type}; charset=utf-8`).send(JSON.stringify(document));
}

const JSON_DOCUMENT = (description: string) => ({ type: 'object', description });
const IMAGE = { type: 'string', format: 'binary' };

/** A public Open Badges 3.0 read at the `id` a document carries. */
const hosted = (path: string, summary: string, responses: RouteContract['responses']) =>
  describeRoute({
    method: 'get',
    base: '',
    path: `${OB3_PATH}${path}`,
    tag: 'open badges',
    summary,
    description: 'Public (no token, no tenant), readable cross-origin.',
    responses: {
      ...responses,
      404: jsonError('Unknown, or the institution has badges off.'),
      410: jsonError('Withdrawn: the certificate or its institution was deleted (credentials, images, profiles).'),
      429: TOO_MANY_REQUESTS,
    },
  });

const credentialContent = { 'application/ld+json': JSON_DOCUMENT('A signed OpenBadgeCredential (VC 2.0), as stored at issuance.') };

export const HOSTED_CREDENTIAL_ROUTES = {
  credential: hosted('/credentials/:uuid', 'Open Badges 3.0 credential', { 200: { description: 'The credential.', content: credentialContent } }),
  pngImage: hosted('/credentials/:uuid/image.png', 'Baked PNG credential (OB 3.0 §5.3)', {
    200: { description: 'A PNG carrying the credential in an `openbadgecredential` iTXt chunk.', content: { 'image/png': IMAGE } },
  }),
  svgImage: hosted('/credentials/:uuid/image.svg', 'Baked SVG credential (OB 3.0 §5.3)', {
    200: { description: 'An SVG carrying the credential in `<openbadges:credential>`.', content: { 'image/svg+xml': IMAGE } },
  }),
  didDocument: hosted('/issuers/:uuid/did.json', "The issuer's did:web DID document", {
    200: {
      description: 'Verification methods (Multikey, Ed25519), old ones kept after rotation.',
      content: { 'application/did+ld+json': JSON_DOCUMENT('A DID document.') },
    },
  }),
  achievement: hosted('/achievements/:uuid', 'Achievement (OB 3.0), one per course', {
    200: {
      description: 'The course as an Achievement, as it is now; a credential keeps the one it was issued with.',
      content: { 'application/ld+json': JSON_DOCUMENT('An OB 3.0 Achievement.') },
    },
  }),
  profile: hosted('/issuers/:uuid', 'Issuer profile (OB 3.0 Profile)', {
    200: { description: 'The profile.', content: { 'application/ld+json': JSON_DOCUMENT('An OB 3.0 Profile.') } },
  }),
  statusList: hosted('/issuers/:uuid/status/:list', 'Revocation status list (BitstringStatusListCredential)', {
    200: {
      description: 'The signed status list, cached for at most 30 s.',
      content: { 'application/ld+json': JSON_DOCUMENT('A BitstringStatusListCredential.') },
    },
  }),
};

export const CREDENTIAL_VERIFY_ROUTE = describeRoute({
  method: 'post',
  base: '/api/v1',
  path: '/badges/verify',
  tag: 'open badges',
  summary: 'Verify an Open Badges 3.0 credential',
  description:
    'Public. Checks the proof, the revocation status, the validity period and whether this service knows the issuer, with the reference libraries; and, with anchoring on, that the certificate is anchored on the chain (`checks.anchor`, docs/anchoring.md).',
  requestBody: {
    description: 'The credential as JSON, or a baked PNG or SVG (raw or as the file of a multipart form).',
    required: true,
    content: {
      'application/json': JSON_DOCUMENT('An OpenBadgeCredential.'),
      'image/png': IMAGE,
      'image/svg+xml': IMAGE,
      'multipart/form-data': { type: 'object', properties: { file: IMAGE }, required: ['file'] },
    },
  },
  responses: {
    200: {
      description: 'The checks performed and their results.',
      content: {
        'application/json': JSON_DOCUMENT('`{data: {verified, credential_id, image_type, checks: {proof, status, validity_period, issuer_known, anchor}}}`'),
      },
    },
    400: jsonError('Not a credential, or unreadable.'),
    413: jsonError('Larger than BADGE_UNBAKE_MAX_BYTES.'),
    415: jsonError('Neither JSON nor a PNG/SVG.'),
    422: {
      description:
        'Not a credential (`errors.credential`), no credential baked into the image (`errors.file`), or unbaking or checking it took longer than BADGE_VERIFY_TIMEOUT_MS (`reason: PROCESSING_LIMIT`).',
      content: { 'application/json': { $ref: '#/components/schemas/ValidationError' } },
    },
    429: TOO_MANY_REQUESTS,
    503: jsonError('Every badge worker is busy; `Retry-After` says when to come back.'),
  },
});

/**
 * The public Open Badges 3.0 documents under /ob/v3 at the ids they carry: credentials (as stored),
 * achievements (courses), issuer DID documents (did:web) and profiles, status list credentials.
 * Cross-origin reads: publicDocumentCors (src/http/cors.ts).
 */
export function hostedCredentialRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    HOSTED_CREDENTIAL_ROUTES.credential.path,
    route(async (req, res) => {
      const ctx = publicContext(req);
      const credential = await openBadgeCredentials.hostedCredential(ctx, req.params.uuid);
      if (credential === 'withdrawn') throw certificateWithdrawn();
      if (credential) {
        countEngagement(engagementSource(ctx, req), req.params.uuid, 'credential_fetch');
        sendDocument(req, res, credential);
      }
      return credential !== null;
    }),
  );
  for (const type of ['png', 'svg'] as BakedImageType[]) {
    router.get(
      HOSTED_CREDENTIAL_ROUTES[type === 'png' ? 'pngImage' : 'svgImage'].path,
      route(async (req, res) => {
        const ctx = publicContext(req);
        const image = await openBadgeCredentials.bakedImage(ctx, req.params.uuid, type);
        if (image === 'withdrawn') throw certificateWithdrawn();
        if (image) {
          countEngagement(engagementSource(ctx, req), req.params.uuid, 'credential_fetch');
          sendImage(req, res, image, `credential-${req.params.uuid}.${type}`);
        }
        return image !== null;
      }),
    );
  }
  router.get(
    HOSTED_CREDENTIAL_ROUTES.didDocument.path,
    route(async (req, res) => {
      const document = await openBadgeCredentials.didDocument(publicContext(req), req.params.uuid);
      if (document) sendJson(res, document, 'application/did+ld+json');
      return document !== null;
    }),
  );
  router.get(
    HOSTED_CREDENTIAL_ROUTES.achievement.path,
    route(async (req, res) => {
      const achievement = await openBadgeCredentials.achievement(publicContext(req), req.params.uuid);
      if (achievement === 'withdrawn') throw issuerWithdrawn();
      if (achievement) sendDocument(req, res, achievement);
      return achievement !== null;
    }),
  );
  router.get(
    HOSTED_CREDENTIAL_ROUTES.profile.path,
    route(async (req, res) => {
      const profile = await openBadgeCredentials.profile(publicContext(req), req.params.uuid);
      if (profile === 'withdrawn') throw issuerWithdrawn();
      if (profile) sendDocument(req, res, profile);
      return profile !== null;
    }),
  );
  router.get(
    HOSTED_CREDENTIAL_ROUTES.statusList.path,
    route(async (req: Request<{ uuid: string; list?: string }>, res) => {
      const listNumber = /^[1-9][0-9]{0,5}$/.test(req.params.list ?? '') ? Number(req.params.list) : 0;
      const list = listNumber ? await openBadgeCredentials.statusList(publicContext(req), req.params.uuid, listNumber) : null;
      if (list) sendJson(res, list, 'application/ld+json', `public, max-age=${STATUS_LIST_MAX_AGE}`);
      return list !== null;
    }),
  );
  return router;
}

export function verificationJson(result: CredentialVerification) {
  const check = ({ passed, message }: { passed: boolean; message: string | null }) => ({ passed, message });
  return {
    verified: result.verified,
    credential_id: result.credentialId,
    image_type: result.imageType,
    checks: {
      proof: check(result.checks.proof),
      status: { ...check(result.checks.status), revoked: result.checks.status.revoked },
      validity_period: check(result.checks.validityPeriod),
      issuer_known: check(result.checks.issuerKnown),
      anchor: anchorCheckJson(result.checks.anchor),
    },
  };
}

/** POST /api/v1/badges/verify (public): a credential as JSON, or baked into a PNG or SVG, checked with the reference libraries. */
export function credentialVerifyRoutes(publicContext: PublicContextOf, config: Pick<Config, 'badgeUnbakeMaxBytes'>): Router {
  const router = Router();
  const maxBytes = config.badgeUnbakeMaxBytes;
  router.post(CREDENTIAL_VERIFY_ROUTE.path, rawUpload({ type: [...BAKED_IMAGE_TYPES, ...JSON_TYPES], limit: maxBytes }), async (req, res, next) => {
    try {
      const ctx = publicContext(req);
      const found = req.is(JSON_TYPES)
        ? { imageType: null, credential: parseCredential(req.body as Buffer) }
        : await bakedCredential(
            ctx,
            await singleUpload(req, maxBytes, 'Send a credential as JSON, or a baked image as image/png, image/svg+xml or a multipart form file.'),
          );
      const result = await verifyCredential(ctx, found.credential);
      res.json({ data: verificationJson({ ...result, imageType: found.imageType }) });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
