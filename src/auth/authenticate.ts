import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createRequestContext, type RequestContext, type ServiceRuntime } from '../context/request-context.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { LARGE_ANSWER_WAIT_MS, ResponseBudget } from '../context/response-budget.js';
import { DomainError } from '../errors/domain-error.js';
import { InFlightLimit } from '../rate-limits/in-flight-limit.js';
import type { Logger } from '../logger.js';
import { chargeResponseBytes, enforce, refuseKnown, refuseSpentResponseBytes } from '../rate-limits/http-limits.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import type { PrincipalCache } from './principal-cache.js';
import { sha256Hex } from './secrets.js';
import { type Principal, TokenService } from './token.service.js';

/** How long a request waits for one of its tenant's places (REQUESTS_IN_FLIGHT_PER_TENANT) before 429. */
const TENANT_REQUEST_WAIT_MS = 10_000;
export const TENANT_REQUESTS_BUSY = 'This tenant has too many requests in progress; try again shortly.';

/**
 * Waits for a place among the tenant's requests in progress, given back when the answer has gone or its
 * client left; false when the client left while it waited (nothing is left to answer).
 */
async function takeTurn(places: InFlightLimit, tenant: string, res: Response): Promise<boolean> {
  let held = false;
  let gone = false;
  res.once('close', () => {
    gone = true;
    if (held) places.release(tenant, 1);
  });
  if (!(await places.acquire(tenant, 1))) {
    res.set('Retry-After', '1');
    throw new DomainError('TOO_MANY_REQUESTS', TENANT_REQUESTS_BUSY);
  }
  if (gone) places.release(tenant, 1);
  else held = true;
  return held;
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/**
 * Authenticates the bearer token, then checks `X-Tenant` against the token's tenant, in that order,
 * counts the request against its client's rate limit, and leaves the request's context in
 * `res.locals.context`. Failures are DomainErrors for the transport's error handler.
 *
 * The token's principal comes from `principals` (a short per-process cache that revocations evict
 * on every process, auth/principal-revocations.ts), else from one indexed lookup. Either way it is
 * settled here, before the request's first query. A token whose client this process already saw
 * refused by its rate limit is answered 429 before all of that (rate-limits/refused-windows.ts): until
 * its window resets such a request costs no statement, even when the token was revoked meanwhile or
 * the tenant header is wrong.
 */
export function authenticate(
  orm: Orm,
  {
    tokenTtlSeconds,
    publicBaseUrl,
    responseMaxBytes,
    responseBytesInFlightPerTenant,
    requestsInFlightPerTenant,
  }: Pick<Config, 'tokenTtlSeconds' | 'publicBaseUrl' | 'responseMaxBytes' | 'responseBytesInFlightPerTenant' | 'requestsInFlightPerTenant'>,
  runtime: ServiceRuntime,
  limits: Pick<RateLimits, 'store' | 'api' | 'responseBytes'>,
  principals: PrincipalCache,
): RequestHandler {
  // The lookup is one prepared statement on the pool: no ORM state, so no fork of the EntityManager.
  const tokens = new TokenService(orm.em, tokenTtlSeconds);
  const largeAnswers = new InFlightLimit(responseBytesInFlightPerTenant, LARGE_ANSWER_WAIT_MS);
  const tenantRequests = requestsInFlightPerTenant > 0 ? new InFlightLimit(requestsInFlightPerTenant, TENANT_REQUEST_WAIT_MS) : undefined;
  const lookUp = async (tokenHash: string): Promise<Principal | undefined> => {
    const readAt = principals.startLookup();
    const found = await tokens.principalByHash(tokenHash);
    if (found) principals.set(tokenHash, found.principal, found.expiresAt, readAt);
    return found?.principal;
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
      if (!token) throw new DomainError('UNAUTHENTICATED', 'Unauthenticated.');
      const tokenHash = sha256Hex(token);
      // A token whose client this process saw refused is refused again before any statement.
      const knownAs = `token:${tokenHash}`;
      await refuseKnown(limits.store, limits.api, knownAs, res);
      const principal = principals.get(tokenHash) ?? (await lookUp(tokenHash));
      if (!principal) throw new DomainError('UNAUTHENTICATED', 'Unauthenticated.');
      const tenantHeader = req.get('x-tenant')?.trim();
      if (!tenantHeader) throw new DomainError('BAD_REQUEST', 'The X-Tenant header is required.');
      if (tenantHeader !== principal.tenant.identifier) {
        throw new DomainError('FORBIDDEN', 'This token is not valid for the requested tenant.');
      }
      await refuseSpentResponseBytes(limits.store, limits.responseBytes, principal.tenant.uuid, res);
      await enforce(limits.store, limits.api, principal.clientId, res, knownAs);
      if (tenantRequests && !(await takeTurn(tenantRequests, principal.tenant.uuid, res))) return;
      const logger = (req as Request & { log: Logger }).log;
      const budget = new ResponseBudget(responseMaxBytes, { gate: largeAnswers, tenant: principal.tenant.uuid });
      res.once('close', () => budget.finish());
      const context = createRequestContext(orm.em, principal, String(req.id), logger, publicBaseUrl, runtime, budget);
      budget.chargeTenantWith(chargeResponseBytes(limits.store, limits.responseBytes, principal.tenant.uuid, res));
      res.locals.context = context;
      next();
    } catch (error) {
      next(error);
    }
  };
}

export function requestContext(res: Response): RequestContext {
  return res.locals.context as RequestContext;
}
