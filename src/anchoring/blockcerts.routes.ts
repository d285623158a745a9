import { createHash } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { certificateWithdrawn, issuerWithdrawn } from '../certificates/public-standing.js';
import type { PublicContextOf } from '../http/public-context.js';
import { describeRoute, jsonError, TOO_MANY_REQUESTS } from '../http/route-contract.js';
import { isFresh } from '../files/file-download.route.js';
import { route } from '../badges/badge.routes.js';
import { publicCredential, publicIssuerProfile, publicRevocationList } from './blockcerts.service.js';

const JSON_LD = 'application/ld+json';

const hosted = (path: string, summary: string, description: string) =>
  describeRoute({
    method: 'get',
    base: '',
    path,
    tag: 'blockcerts',
    summary,
    description: `${description} Public (no token, no tenant), readable cross-origin.`,
    responses: {
      200: { description: 'The document.', content: { [JSON_LD]: { type: 'object', description: summary } } },
      404: jsonError('Unknown, not anchored (yet), or anchoring is off.'),
      410: jsonError('Withdrawn: the certificate or its institution was deleted.'),
      429: TOO_MANY_REQUESTS,
    },
  });

export const BLOCKCERTS_ROUTES = {
  profile: hosted(
    '/blockcerts/issuers/:uuid',
    'Blockcerts issuer profile',
    "The institution's issuer profile: the anchoring address as its public key, and its revocation list.",
  ),
  revocations: hosted(
    '/blockcerts/issuers/:uuid/revocations',
    'Blockcerts revocation list',
    'Anchored certificates of the institution that were revoked or withdrawn; `?assertionId=<credential id>` narrows it to one.',
  ),
  credential: hosted(
    '/blockcerts/:uuid',
    'Blockcerts v3 credential',
    'The certificate as anchored: a Blockcerts v3 credential with its MerkleProof2019 proof.',
  ),
};

/** JSON with CORS open and an ETag of the bytes (a conditional GET answers 304). */
function sendJson(req: Request, res: Response, document: object): void {
  const body = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  res.set({ ETag: etag, 'Cache-Control': 'public, no-cache', 'Access-Control-Allow-Origin': '*' });
  res.type(`${req.accepts(['application/json', JSON_LD]) === 'application/json' ? 'application/json' : JSON_LD}; charset=utf-8`);
  if (isFresh(req, etag)) res.status(304).end();
  else res.send(body);
}

/** The public Blockcerts documents at the ids they carry. */
export function blockcertsRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    BLOCKCERTS_ROUTES.profile.path,
    route(async (req, res) => {
      const profile = await publicIssuerProfile(publicContext(req), req.params.uuid);
      if (profile === 'withdrawn') throw issuerWithdrawn();
      if (profile) sendJson(req, res, profile);
      return profile !== null;
    }),
  );
  router.get(
    BLOCKCERTS_ROUTES.revocations.path,
    route(async (req, res) => {
      const assertionId = typeof req.query.assertionId === 'string' ? req.query.assertionId : undefined;
      const list = await publicRevocationList(publicContext(req), req.params.uuid, assertionId);
      if (list) sendJson(req, res, list);
      return list !== null;
    }),
  );
  router.get(
    BLOCKCERTS_ROUTES.credential.path,
    route(async (req, res) => {
      const credential = await publicCredential(publicContext(req), req.params.uuid);
      if (credential === 'withdrawn') throw certificateWithdrawn();
      if (credential) sendJson(req, res, credential);
      return credential !== null;
    }),
  );
  return router;
}
