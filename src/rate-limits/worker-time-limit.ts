import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { JobOwner } from '../documents/worker-pool.js';
import { DomainError } from '../errors/domain-error.js';
import { clientAddress } from './client-address.js';
import type { RateLimitStore } from './rate-limit.repository.js';
import { decide, isOff, type RateLimit } from './rate-limiter.js';

export const WORKER_TIME_SPENT = 'Too much processing time was used from this address; try again later.';

const charges = new WeakMap<Request, NonNullable<JobOwner['charge']>>();

/**
 * Public routes that put anyone's input on a worker: one address may use `rule.limit` milliseconds of
 * worker time a window. The cost is only known afterwards, so each job's measured time is added to the
 * address's window as it ends (JobOwner.charge, before the answer is sent), and a request arriving
 * once the time is spent is refused with 429 and Retry-After until the window resets. Counting cost
 * rather than requests: thirty cheap verifications a minute pass, thirty that each run into the
 * inspection time limit do not.
 */
export function limitWorkerTime(store: RateLimitStore, rule: RateLimit): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (isOff(rule)) return next();
    try {
      const key = `${rule.name}:${clientAddress(req)}`;
      // Time spent stays spent until the window resets: once seen, this process refuses without a statement.
      let spentUntil = store.refused.resetAt(key);
      if (!spentUntil) {
        const spent = await store.peek(key);
        if (spent.resetAt && spent.hits >= rule.limit) store.refused.remember(key, (spentUntil = spent.resetAt));
      }
      if (spentUntil) {
        res.set('Retry-After', String(decide(rule, rule.limit, spentUntil).retryAfter));
        throw new DomainError('TOO_MANY_REQUESTS', WORKER_TIME_SPENT);
      }
      // A charge lost to a database failure is not worth failing the answer the job produced.
      charges.set(req, (elapsedMs) =>
        store.hit(key, rule.windowMs, elapsedMs).then(
          () => undefined,
          () => undefined,
        ),
      );
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The request's public job owner: its client address's lane, charged when a worker-time limit counts the route. */
export function publicJobOwner(req: Request): JobOwner {
  return { lane: `address:${clientAddress(req)}`, charge: charges.get(req) };
}
