import { setTimeout as pause } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { clientAddress } from './client-address.js';
import type { RateLimitStore } from './rate-limit.repository.js';
import { consume, decide, isOff, type RateLimit, type RateLimitDecision } from './rate-limiter.js';

export const TOO_MANY = 'Too Many Attempts.';

/**
 * How long a refusal this process already knows is held before it is answered. A client that ignores
 * Retry-After and resends as soon as it is answered (a closed loop over a few keep-alive connections)
 * then sends two requests a second per connection instead of thousands, and the CPU those refusals
 * took goes back to the other tenants (docs/response-limits.md). A client that honours Retry-After
 * never meets the pause; the first refusal of a window, which PostgreSQL counts, is not held.
 */
export const REFUSAL_HOLD_MS = 500;

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
 * transport answers 429 in its own shape (Laravel `{message}`, GraphQL `errors`). A refusal is
 * remembered by this process under `knownAs` (the subject unless the caller knows it sooner by
 * another name), so the next request refused by that window is answered by `refuseKnown` with no statement.
 */
export async function enforce(store: RateLimitStore, rule: RateLimit, subject: string, res: Response, knownAs = subject): Promise<void> {
  if (isOff(rule)) return;
  await refuseKnown(store, rule, knownAs, res);
  const decision = await consume(store, rule, subject);
  announce(res, decision);
  if (decision.allowed) return;
  store.refused.remember(`${rule.name}:${knownAs}`, decision.resetAt);
  throw new DomainError('TOO_MANY_REQUESTS', TOO_MANY);
}

/**
 * Throws TOO_MANY_REQUESTS, with the same headers, when this process already saw the window refused,
 * after REFUSAL_HOLD_MS: resending at once gains a client nothing.
 */
export async function refuseKnown(store: RateLimitStore, rule: RateLimit, knownAs: string, res: Response): Promise<void> {
  if (isOff(rule)) return;
  const resetAt = store.refused.resetAt(`${rule.name}:${knownAs}`);
  if (!resetAt) return;
  announce(res, decide(rule, rule.limit + 1, resetAt));
  await pause(REFUSAL_HOLD_MS);
  throw new DomainError('TOO_MANY_REQUESTS', TOO_MANY);
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
