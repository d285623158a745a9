import express, { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import type { PublicContextOf } from '../http/public-context.js';
import { type ContractResponse, describeRoute, TOO_MANY_REQUESTS } from '../http/route-contract.js';
import { offerDocument } from './credential-offers.js';
import { authorizationServerMetadata, CREDENTIAL_CONFIGURATIONS, issuerMetadata, WALLET_PATHS } from './issuer-metadata.js';
import { walletExchange } from './wallet-exchange.js';
import { WalletError } from './wallet-errors.js';

const OAUTH_ERROR = {
  type: 'object',
  description: 'OAuth 2.0 error form (RFC 6749 §5.2, OpenID4VCI 1.0 §8.3.1.2).',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  required: ['error'],
};
const oauthError = (description: string): ContractResponse => ({ description, content: { 'application/json': OAUTH_ERROR } });
const json = (description: string, schema: Record<string, unknown> = {}): ContractResponse => ({
  description,
  content: { 'application/json': { type: 'object', description, ...schema } },
});
const strings = (...names: string[]) => Object.fromEntries(names.map((name) => [name, { type: 'string' }]));
const wallet = (method: 'get' | 'post', path: string, summary: string, responses: Record<number, ContractResponse>, extra = {}) =>
  describeRoute({
    method,
    base: '',
    path,
    tag: 'wallets',
    summary,
    description: 'OpenID4VCI 1.0 (pre-authorized code flow), public; docs/wallets.md.',
    responses: { ...responses, 429: TOO_MANY_REQUESTS },
    ...extra,
  });

export const WALLET_ROUTES = {
  issuerMetadata: wallet('get', WALLET_PATHS.issuerMetadata, 'Credential Issuer Metadata', {
    200: json('credential_configurations_supported for OB 3.0 and CLR 2.0 (ldp_vc).'),
  }),
  authorizationServer: wallet('get', WALLET_PATHS.authorizationServerMetadata, 'OAuth 2.0 Authorization Server Metadata', {
    200: json('The token endpoint of the pre-authorized code grant.'),
  }),
  offer: wallet('get', WALLET_PATHS.offer, 'A credential offer, by its credential_offer_uri', {
    200: json('The Credential Offer with its pre-authorized code.'),
    404: oauthError('Unknown, used, revoked or expired.'),
  }),
  token: wallet(
    'post',
    WALLET_PATHS.token,
    'Token endpoint of wallets (pre-authorized code grant)',
    {
      200: json('The access token for the credential endpoint.', {
        properties: { ...strings('access_token', 'token_type'), expires_in: { type: 'integer' } },
        required: ['access_token', 'token_type', 'expires_in'],
      }),
      400: oauthError('`invalid_request`, `invalid_grant` (unknown, used, revoked or expired code; wrong PIN), `unsupported_grant_type`.'),
    },
    {
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            type: 'object',
            properties: { grant_type: { type: 'string' }, 'pre-authorized_code': { type: 'string' }, tx_code: { type: 'string' } },
            required: ['grant_type', 'pre-authorized_code'],
          },
        },
      },
    },
  ),
  nonce: wallet('post', WALLET_PATHS.nonce, 'Nonce endpoint', {
    200: json('A c_nonce for one proof of possession, valid 5 minutes.', { properties: strings('c_nonce'), required: ['c_nonce'] }),
  }),
  credential: wallet(
    'post',
    WALLET_PATHS.credential,
    'Credential endpoint',
    {
      200: json('The credential bound to the holder DID, signed (eddsa-rdfc-2022).', {
        properties: { credentials: { type: 'array', items: { type: 'object', properties: { credential: { type: 'object' } }, required: ['credential'] } } },
        required: ['credentials'],
      }),
      400: oauthError('`invalid_credential_request`, `unknown_credential_configuration`, `invalid_proof`, `invalid_nonce`.'),
      401: oauthError('`invalid_token`.'),
    },
    {
      requestBody: {
        required: true,
        content: {
          'application/json': {
            type: 'object',
            properties: {
              credential_configuration_id: { type: 'string', enum: Object.keys(CREDENTIAL_CONFIGURATIONS) },
              proofs: {
                type: 'object',
                description: 'One proof of possession: a JWT (`typ: openid4vci-proof+jwt`) signed by the holder key.',
                properties: { jwt: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1 } },
              },
              proof: { type: 'object', description: 'Draft 15 form `{proof_type: "jwt", jwt}`, also accepted.' },
            },
            required: ['credential_configuration_id'],
          },
        },
      },
    },
  ),
};

function answer(res: Response, body: object): void {
  res.set('Cache-Control', 'no-store').json(body);
}

/** WalletErrors in OAuth form; anything else goes on to the service's error handler. */
function walletRoute(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res, next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (!(error instanceof WalletError)) return next(error);
      if (error.status === 401) res.set('WWW-Authenticate', `Bearer error="invalid_token"`);
      res.status(error.status).set('Cache-Control', 'no-store').json(error.body);
    }
  };
}

const bodyOf = (req: Request): Record<string, unknown> => (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {});

/** The OpenID4VCI issuer: metadata, offers by reference, token, nonce and credential endpoints (rate limited by `limit`). */
export function walletRoutes(publicContext: PublicContextOf, limit: RequestHandler): Router {
  const router = Router();
  router.get(WALLET_PATHS.issuerMetadata, limit, (req, res) => answer(res, issuerMetadata(publicContext(req).publicBaseUrl)));
  router.get(WALLET_PATHS.authorizationServerMetadata, limit, (req, res) => answer(res, authorizationServerMetadata(publicContext(req).publicBaseUrl)));
  router.get(
    WALLET_PATHS.offer,
    limit,
    walletRoute(async (req, res) => {
      const offer = await offerDocument(publicContext(req), String(req.params.code));
      if (offer) answer(res, offer);
      else
        res
          .status(404)
          .set('Cache-Control', 'no-store')
          .json({ error: 'invalid_request', error_description: 'The credential offer is unknown, used, revoked or expired.' });
    }),
  );
  router.post(
    WALLET_PATHS.token,
    limit,
    express.urlencoded({ extended: false, limit: '8kb' }),
    walletRoute(async (req, res) => answer(res, await walletExchange.token(publicContext(req), bodyOf(req)))),
  );
  router.post(
    WALLET_PATHS.nonce,
    limit,
    walletRoute(async (req, res) => answer(res, await walletExchange.nonce(publicContext(req)))),
  );
  router.post(
    WALLET_PATHS.credential,
    limit,
    express.json({ limit: '32kb' }),
    walletRoute(async (req, res) => answer(res, await walletExchange.credential(publicContext(req), req.get('authorization'), bodyOf(req)))),
  );
  return router;
}
