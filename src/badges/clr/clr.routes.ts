import { Router } from 'express';
import { certificateWithdrawn } from '../../certificates/public-standing.js';
import type { PublicContextOf } from '../../http/public-context.js';
import { describeRoute, jsonError, TOO_MANY_REQUESTS } from '../../http/route-contract.js';
import { route, sendDocument } from '../badge.routes.js';
import { CLR_PATH } from '../v3/did-web.js';
import { clrCredentials } from './clr.service.js';

export const CLR_ROUTES = {
  credential: describeRoute({
    method: 'get',
    base: '',
    path: `${CLR_PATH}/credentials/:uuid`,
    tag: 'open badges',
    summary: 'The academic transcript as a CLR 2.0 ClrCredential',
    description:
      'Public (no token, no tenant), readable cross-origin. One AchievementCredential per module and one for the course with the final grade, signed like the Open Badges 3.0 credential (eddsa-rdfc-2022) and pointing at its status list entry.',
    responses: {
      200: { description: 'The credential.', content: { 'application/ld+json': { type: 'object', description: 'A signed ClrCredential (VC 2.0).' } } },
      404: jsonError('Unknown, a draft, or the institution has badges off.'),
      410: jsonError('Withdrawn: the certificate or its institution was deleted.'),
      429: TOO_MANY_REQUESTS,
    },
  }),
};

/** GET /clr/v2/credentials/{certificate}: the transcript as CLR 2.0, under the OB 3.0 credential's public lifecycle. */
export function clrRoutes(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    CLR_ROUTES.credential.path,
    route(async (req, res) => {
      const credential = await clrCredentials.hostedCredential(publicContext(req), req.params.uuid);
      if (credential === 'withdrawn') throw certificateWithdrawn();
      if (credential) sendDocument(req, res, credential);
      return credential !== null;
    }),
  );
  return router;
}
