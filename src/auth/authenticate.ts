import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { confirmPrincipal, createRequestContext, type RequestContext, type ServiceRuntime } from '../context/request-context.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors/domain-error.js';
import type { Logger } from '../logger.js';
import { enforce } from '../rate-limits/http-limits.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { PrincipalCache } from './principal-cache.js';
import { PrincipalCheck } from './principal-check.js';
import { sha256Hex } from './secrets.js';
import { type Principal, TokenService } from './token.service.js';

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/**
 * Requests whose principal may be proven by their first read instead of a lookup of its own: no
 * body, or a JSON one, and no Idempotency-Key (whose middleware writes before the operation runs).
 * Their mutations, answers and errors still wait for the proof (`confirmPrincipal`).
 */
const mayProveLater = (req: Request) =>
  !req.get('idempotency-key') &&
  (req.method === 'GET' || req.method === 'HEAD' || (req.method === 'POST' && req.is('application/json') === 'application/json'));

/**
 * Authenticates the bearer token, then checks `X-Tenant` against the token's tenant, in that order,
 * counts the request against its client's rate limit, and leaves the request's context in
 * `res.locals.context`. Failures are DomainErrors for the transport's error handler.
 *
 * A token this process has authenticated before skips the lookup: its cached principal rides on the
 * request's first page statement, which proves the token still active in the same statement
 * (auth/principal-check.ts). Every request thus still sees a revocation made a moment before, on
 * every process, without paying a statement of its own for it.
 */
export function authenticate(
  orm: Orm,
  { tokenTtlSeconds, publicBaseUrl, responseMaxBytes }: Pick<Config, 'tokenTtlSeconds' | 'publicBaseUrl' | 'responseMaxBytes'>,
  runtime: ServiceRuntime,
  limits: Pick<RateLimits, 'store' | 'api'>,
  principals = new PrincipalCache(),
): RequestHandler {
  // The lookup is one prepared statement on the pool: no ORM state, so no fork of the EntityManager.
  const tokens = new TokenService(orm.em, tokenTtlSeconds);
  const lookUp = async (tokenHash: string): Promise<Principal | null> => {
    const found = await tokens.principalByHash(tokenHash);
    if (found) principals.set(tokenHash, found.principal, found.expiresAt);
    else principals.delete(tokenHash);
    return found?.principal ?? null;
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    let check: PrincipalCheck | undefined;
    try {
      const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
      if (!token) throw new DomainError('UNAUTHENTICATED', 'Unauthenticated.');
      const tokenHash = sha256Hex(token);
      const cached = mayProveLater(req) ? principals.get(tokenHash) : undefined;
      if (cached)
        check = new PrincipalCheck(
          tokenHash,
          cached,
          () => lookUp(tokenHash),
          () => principals.delete(tokenHash),
        );
      const principal = cached ?? (await lookUp(tokenHash));
      if (!principal) throw new DomainError('UNAUTHENTICATED', 'Unauthenticated.');
      const tenantHeader = req.get('x-tenant')?.trim();
      if (!tenantHeader) throw new DomainError('BAD_REQUEST', 'The X-Tenant header is required.');
      if (tenantHeader !== principal.tenant.identifier) {
        throw new DomainError('FORBIDDEN', 'This token is not valid for the requested tenant.');
      }
      await enforce(limits.store, limits.api, principal.clientId, res);
      const logger = (req as Request & { log: Logger }).log;
      res.locals.context = createRequestContext(orm.em, principal, String(req.id), logger, publicBaseUrl, runtime, check, responseMaxBytes);
      next();
    } catch (error) {
      // Authentication comes first: a refusal for any other reason waits until the token is proven.
      next(
        check
          ? await check.confirm().then(
              () => error,
              (refusal: unknown) => refusal,
            )
          : error,
      );
    }
  };
}

export function requestContext(res: Response): RequestContext {
  return res.locals.context as RequestContext;
}

/**
 * Before the error handlers of routes behind `authenticate`: a request whose principal is still
 * unproven (an error came before any statement proved it) answers 401 if the token is no longer
 * active, and its own error otherwise.
 */
export const proveBeforeErrors: ErrorRequestHandler = (error, _req, res, next) => {
  confirmPrincipal(res.locals.context as RequestContext | undefined).then(
    () => next(error),
    (refusal: unknown) => next(refusal),
  );
};
