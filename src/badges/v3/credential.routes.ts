import express, { type Request, type Response, Router } from 'express';
import type { Config } from '../../config.js';
import type { PublicContextOf } from '../../http/public-context.js';
import { singleUpload } from '../../http/single-upload.js';
import { BAKED_IMAGE_TYPES } from '../badge-upload.js';
import { route, sendDocument, sendImage } from '../badge.routes.js';
import type { BakedImageType } from '../badge-urls.js';
import { bakedCredential, type CredentialVerification, parseCredential, verifyCredential } from './credential-verification.js';
import { openBadgeCredentials } from './credential.service.js';
import { OB3_PATH } from './did-web.js';

const JSON_TYPES = ['application/json', 'application/ld+json', 'application/vc+ld+json', 'application/vc'];

/** A revocation shows to verifiers within this many seconds (Bitstring Status List caching). */
const STATUS_LIST_MAX_AGE = 30;

function sendJson(res: Response, document: object, type: string, cacheControl = 'public, no-cache'): void {
  res.set({ 'Cache-Control': cacheControl, 'Access-Control-Allow-Origin': '*' });
  res.type(`${type}; charset=utf-8`).send(JSON.stringify(document));
}

/**
 * The public Open Badges 3.0 documents under /ob/v3 at the ids they carry: credentials (as stored),
 * issuer DID documents (did:web) and profiles, status list credentials.
 */
export function hostedCredentialRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    `${OB3_PATH}/credentials/:uuid`,
    route(async (req, res) => {
      const credential = await openBadgeCredentials.credential(publicContext(req), req.params.uuid);
      if (credential) sendDocument(req, res, credential);
      return credential !== null;
    }),
  );
  for (const type of ['png', 'svg'] as BakedImageType[]) {
    router.get(
      `${OB3_PATH}/credentials/:uuid/image.${type}`,
      route(async (req, res) => {
        const image = await openBadgeCredentials.bakedImage(publicContext(req), req.params.uuid, type);
        if (image) sendImage(req, res, image, `credential-${req.params.uuid}.${type}`);
        return image !== null;
      }),
    );
  }
  router.get(
    `${OB3_PATH}/issuers/:uuid/did.json`,
    route(async (req, res) => {
      const document = await openBadgeCredentials.didDocument(publicContext(req), req.params.uuid);
      if (document) sendJson(res, document, 'application/did+ld+json');
      return document !== null;
    }),
  );
  router.get(
    `${OB3_PATH}/issuers/:uuid`,
    route(async (req, res) => {
      const profile = await openBadgeCredentials.profile(publicContext(req), req.params.uuid);
      if (profile) sendDocument(req, res, profile);
      return profile !== null;
    }),
  );
  router.get(
    `${OB3_PATH}/issuers/:uuid/status/:list`,
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
    },
  };
}

/** POST /api/v1/badges/verify (public): a credential as JSON, or baked into a PNG or SVG, checked with the reference libraries. */
export function credentialVerifyRoutes(publicContext: PublicContextOf, config: Pick<Config, 'badgeUnbakeMaxBytes'>): Router {
  const router = Router();
  const maxBytes = config.badgeUnbakeMaxBytes;
  router.post('/badges/verify', express.raw({ type: [...BAKED_IMAGE_TYPES, ...JSON_TYPES], limit: maxBytes }), async (req, res, next) => {
    try {
      const ctx = publicContext(req);
      const found = req.is(JSON_TYPES)
        ? { imageType: null, credential: parseCredential(req.body as Buffer) }
        : bakedCredential(
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
