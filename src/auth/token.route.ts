import OAuth2Server from '@node-oauth/oauth2-server';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { OAuthClient } from './oauth-client.entity.js';
import type { TokenAttempt, TokenThrottle } from './token-throttle.js';
import { TokenService } from './token.service.js';
import { DomainError } from '../errors/domain-error.js';
import { answerError } from '../http/error-response.js';
import { describeRoute, TOO_MANY_REQUESTS } from '../http/route-contract.js';

const { Request: OAuthRequest, Response: OAuthResponse, OAuthError, UnsupportedGrantTypeError } = OAuth2Server;

/** The library's model for the client_credentials grant, backed by TokenService. */
function clientCredentialsModel(orm: Orm, ttlSeconds: number): OAuth2Server.ClientCredentialsModel {
  const tokens = () => new TokenService(orm.em.fork(), ttlSeconds);
  return {
    async getClient(clientId: string, clientSecret: string) {
      const client = await tokens().findActiveClient(clientId, clientSecret);
      return client ? { id: client.clientId, grants: ['client_credentials'], record: client } : false;
    },
    async getUserFromClient(client) {
      return { client: client.id };
    },
    async generateAccessToken() {
      return tokens().newToken().accessToken;
    },
    async saveToken(token, client, user) {
      await tokens().record(client.record as OAuthClient, token.accessToken, token.accessTokenExpiresAt!);
      return { ...token, client, user };
    },
    async getAccessToken() {
      return false;
    },
    async verifyScope() {
      return true;
    },
  };
}

/** An OAuth error of the library as the core's error: its RFC 6749 §5.2 name is the reason, answered as `error`. */
function oauthRefusal(error: InstanceType<typeof OAuthError>): DomainError {
  if (error.name === 'invalid_client') return new DomainError('UNAUTHENTICATED', 'Client authentication failed', undefined, error.name);
  return new DomainError(error.code === 403 ? 'FORBIDDEN' : 'BAD_REQUEST', error.message, undefined, error.name);
}

type OAuthServer = InstanceType<typeof OAuth2Server>;

/** Runs the grant and answers it; an issued token tells `attempt` it succeeded. */
async function grant(server: OAuthServer, ttlSeconds: number, req: Request, res: Response, attempt: TokenAttempt): Promise<void> {
  const grantType = (req.body as Record<string, unknown> | undefined)?.grant_type;
  if (grantType !== undefined && grantType !== 'client_credentials') {
    // The library would answer unauthorized_client for its other built-in grants; this service has only one.
    throw oauthRefusal(new UnsupportedGrantTypeError('Unsupported grant type: only client_credentials is supported'));
  }
  const request = new OAuthRequest({
    headers: req.headers as Record<string, string>,
    method: req.method,
    query: req.query as Record<string, string>,
    body: req.body ?? {},
  });
  const response = new OAuthResponse({ headers: {} });
  try {
    const token = await server.token(request, response, { accessTokenLifetime: ttlSeconds });
    await attempt.succeeded();
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json({
      token_type: 'Bearer',
      expires_in: ttlSeconds,
      access_token: token.accessToken,
    });
  } catch (error) {
    // The library wraps what its model threw (a database failure among them) as a server error.
    const cause = error instanceof OAuthError && error.code >= 500 ? ((error as { inner?: unknown }).inner ?? error) : error;
    throw error instanceof OAuthError && error.code < 500 ? oauthRefusal(error) : cause;
  }
}

const OAUTH_ERROR = {
  type: 'object',
  properties: { error: { type: 'string' }, error_description: { type: 'string' }, message: { type: 'string' } },
  required: ['error', 'error_description', 'message'],
};

export const TOKEN_ROUTE = describeRoute({
  method: 'post',
  base: '/api/v1',
  path: '/oauth/token',
  tag: 'authentication',
  summary: 'Issue an access token',
  description:
    'OAuth 2.0 client credentials grant (RFC 6749 §4.4). The client authenticates with HTTP Basic or with `client_id` and `client_secret` form fields.',
  requestBody: {
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        type: 'object',
        properties: { grant_type: { type: 'string', enum: ['client_credentials'] }, client_id: { type: 'string' }, client_secret: { type: 'string' } },
        required: ['grant_type'],
      },
    },
  },
  responses: {
    200: {
      description: 'A bearer token.',
      content: {
        'application/json': {
          type: 'object',
          properties: { token_type: { const: 'Bearer' }, expires_in: { type: 'integer', examples: [43200] }, access_token: { type: 'string' } },
          required: ['token_type', 'expires_in', 'access_token'],
        },
      },
    },
    400: { description: '`unsupported_grant_type` or `invalid_request` (RFC 6749 §5.2).', content: { 'application/json': OAUTH_ERROR } },
    401: { description: '`invalid_client`: unknown client or wrong secret.', content: { 'application/json': OAUTH_ERROR } },
    429: TOO_MANY_REQUESTS,
  },
});

/** POST /api/v1/oauth/token: client_credentials grant, form-encoded, public, limited by `throttle`. */
export function tokenRoute(orm: Orm, ttlSeconds: number, logger: Logger, throttle: TokenThrottle): RequestHandler[] {
  const server = new OAuth2Server({
    model: clientCredentialsModel(orm, ttlSeconds),
    accessTokenLifetime: ttlSeconds,
    requireClientAuthentication: { client_credentials: true },
  });
  const handle: RequestHandler = async (req: Request, res: Response) => {
    try {
      await grant(server, ttlSeconds, req, res, await throttle.admit(req, res));
    } catch (error) {
      answerError(error, req, res, logger, 'oauth');
    }
  };
  return [express.urlencoded({ extended: false, limit: '16kb' }), handle];
}
