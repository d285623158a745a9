import { TokenThrottle } from '../auth/token-throttle.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { RateLimitStore } from './rate-limit.repository.js';
import { perMinute, type RateLimit } from './rate-limiter.js';

/** Every limit the HTTP layer enforces, over one store shared with the other server processes. */
export interface RateLimits {
  store: RateLimitStore;
  /** Authenticated requests per client (REST and GraphQL count together). */
  api: RateLimit;
  publicReads: RateLimit;
  verify: RateLimit;
  /** Milliseconds of public worker time per address (worker-time-limit.ts). */
  publicWorkerTime: RateLimit;
  /** Bytes of answers per tenant, from the stored sizes they charged (http-limits.ts). */
  responseBytes: RateLimit;
  token: TokenThrottle;
}

export function createRateLimits(orm: Orm, { rateLimits }: Pick<Config, 'rateLimits'>): RateLimits {
  const store = new RateLimitStore(orm);
  return {
    store,
    api: perMinute('api:client', rateLimits.api),
    publicReads: perMinute('public:address', rateLimits.publicReads),
    verify: perMinute('verify:address', rateLimits.verify),
    publicWorkerTime: perMinute('worker-ms:address', rateLimits.publicWorkerMs),
    responseBytes: perMinute('response-bytes:tenant', rateLimits.responseBytes),
    token: new TokenThrottle(store, rateLimits.token),
  };
}
