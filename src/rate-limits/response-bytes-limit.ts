import type { Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { decide, isOff, type RateLimit } from './rate-limiter.js';

export const RESPONSE_BYTES_SPENT = 'This tenant has read too many bytes of answers this minute; try again later.';

/**
 * A tenant's budget of answer bytes a window (RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE), REST and GraphQL
 * alike, spent by the stored sizes of the large fields (free JSON such as design configs) an answer is
 * about to read: a request arriving once the window is spent is refused with 429 and Retry-After before
 * it is executed (without a statement once this process has seen the window spent); the returned
 * charge adds an answer's bytes to the window in one statement when it is admitted to read them
 * (ResponseBudget.admit), and refuses it if the window was already spent by then. Charged before the
 * answer is read, not after it has gone, so answers running at once cannot all pass an unspent window:
 * one answer overshoots by at most its own bytes (RESPONSE_MAX_BYTES).
 */
export function limitResponseBytes(store: RateLimitStore, rule: RateLimit, tenantUuid: string, res: Response): (bytes: number) => Promise<void> {
  if (isOff(rule)) return async () => undefined;
  const key = `${rule.name}:${tenantUuid}`;
  const refuse = (resetAt: Date): never => {
    res.set('Retry-After', String(decide(rule, rule.limit, resetAt).retryAfter));
    throw new DomainError('TOO_MANY_REQUESTS', RESPONSE_BYTES_SPENT);
  };
  const refuseWhenSpent = () => {
    const spentUntil = store.refused.resetAt(key);
    if (spentUntil) refuse(spentUntil);
  };
  refuseWhenSpent();
  return async (bytes) => {
    refuseWhenSpent();
    const amount = Math.ceil(bytes);
    const { hits, resetAt } = await store.hit(key, rule.windowMs, amount);
    if (hits >= rule.limit) store.refused.remember(key, resetAt);
    if (hits - amount >= rule.limit) refuse(resetAt);
  };
}
