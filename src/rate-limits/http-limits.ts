import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { clientAddress } from './client-address.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { consume, isOff, type RateLimit, type RateLimitDecision } from './rate-limiter.js';

export const TOO_MANY = 'Too Many Attempts.';

/** Laravel's throttle headers; `X-RateLimit-Reset` is the reset time in Unix seconds. */
function announce(res: Response, decision: RateLimitDecision): void {
  res.set({
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.resetAt.getTime() / 1000)),
  });
  if (!decision.allowed) res.set('Retry-After', String(decision.retryAfter));
}

/**
 * Counts one hit of the subject against `rule` and throws TOO_MANY_REQUESTS past it, so each
 * transport answers 429 in its own shape (Laravel `{message}`, GraphQL `errors`).
 */
export async function enforce(store: RateLimitStore, rule: RateLimit, subject: string, res: Response): Promise<void> {
  if (isOff(rule)) return;
  const decision = await consume(store, rule, subject);
  announce(res, decision);
  if (!decision.allowed) throw new DomainError('TOO_MANY_REQUESTS', TOO_MANY);
}

/** Public routes: one limit per client address. */
export function limitByAddress(store: RateLimitStore, rule: RateLimit): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await enforce(store, rule, clientAddress(req), res);
      next();
    } catch (error) {
      next(error);
    }
  };
}
