import { setTimeout as pause } from 'node:timers/promises';
import type { Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { REFUSAL_HOLD_MS } from './http-limits.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { decide, isOff, type RateLimit } from './rate-limiter.js';

export const RESPONSE_BYTES_SPENT = 'This tenant has read too many bytes of answers this minute; try again later.';

/**
 * A tenant's budget of answer bytes a window (RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE), REST and GraphQL
 * alike, spent by the stored sizes of the large fields (free JSON such as design configs) an answer is
 * about to read. `refuseSpentResponseBytes` refuses a request arriving once this process has seen the
 * window spent; `chargeResponseBytes` adds an answer's bytes to the window in one statement when it is
 * admitted to read them (ResponseBudget.admit), and refuses it if the window was already spent by then.
 * Charged before the answer is read, not after it has gone, so answers running at once cannot all pass
 * an unspent window: one answer overshoots by at most its own bytes (RESPONSE_MAX_BYTES).
 */
export function chargeResponseBytes(store: RateLimitStore, rule: RateLimit, tenantUuid: string, res: Response): (bytes: number) => Promise<void> {
  if (isOff(rule)) return async () => undefined;
  const key = `${rule.name}:${tenantUuid}`;
  return async (bytes) => {
    const known = store.refused.resetAt(key);
    if (known) refuse(rule, known, res);
    const amount = Math.ceil(bytes);
    const { hits, resetAt } = await store.hit(key, rule.windowMs, amount);
    if (hits >= rule.limit) store.refused.remember(key, resetAt);
    if (hits - amount >= rule.limit) refuse(rule, resetAt, res);
  };
}

/**
 * 429 with Retry-After, before any statement, for a tenant whose window this process saw spent, held
 * REFUSAL_HOLD_MS as the other known refusals are: unheld, a client resending at once over 24
 * connections sent 500 requests a second, each authenticated and counted, taking more of the event
 * loop than the pages it had read (docs/benchmarks.md, Neighbours).
 */
export async function refuseSpentResponseBytes(store: RateLimitStore, rule: RateLimit, tenantUuid: string, res: Response): Promise<void> {
  if (isOff(rule)) return;
  const spentUntil = store.refused.resetAt(`${rule.name}:${tenantUuid}`);
  if (!spentUntil) return;
  await pause(REFUSAL_HOLD_MS);
  refuse(rule, spentUntil, res);
}

function refuse(rule: RateLimit, resetAt: Date, res: Response): never {
  res.set('Retry-After', String(decide(rule, rule.limit, resetAt).retryAfter));
  throw new DomainError('TOO_MANY_REQUESTS', RESPONSE_BYTES_SPENT);
}
