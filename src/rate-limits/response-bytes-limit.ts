import type { Response } from 'express';
import type { RequestContext } from '../context/request-context.js';
import { DomainError } from '../errors/domain-error.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { decide, isOff, type RateLimit } from './rate-limiter.js';

export const RESPONSE_BYTES_SPENT = 'This tenant has read too many bytes of answers this minute; try again later.';

/**
 * A tenant's budget of answer bytes a window (RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE), REST and GraphQL
 * alike: the stored sizes each answer charged to its ResponseBudget (free JSON such as design configs,
 * counted before it is read) are added to the tenant's window when the answer has gone, in one
 * statement, and only for answers that charged any. A request arriving once the window is spent is
 * refused with 429 and Retry-After before it is executed, without a statement once this process has
 * seen the window spent. One answer may overshoot by at most its own bytes (RESPONSE_MAX_BYTES).
 * Returns that check, for an answer that waited its turn to read large fields (answer-bytes-in-flight.ts):
 * the window may have been spent by the answers it waited for.
 */
export function limitResponseBytes(store: RateLimitStore, rule: RateLimit, ctx: RequestContext, res: Response): () => void {
  if (isOff(rule)) return () => undefined;
  const key = `${rule.name}:${ctx.tenant.uuid}`;
  const refuseWhenSpent = () => {
    const spentUntil = store.refused.resetAt(key);
    if (!spentUntil) return;
    res.set('Retry-After', String(decide(rule, rule.limit, spentUntil).retryAfter));
    throw new DomainError('TOO_MANY_REQUESTS', RESPONSE_BYTES_SPENT);
  };
  refuseWhenSpent();
  res.once('finish', () => {
    const bytes = ctx.loaders.budget.spent;
    if (bytes <= 0) return;
    // A charge lost to a database failure is not worth more than the answer it counted.
    store.afterAnswer(key, rule.windowMs, bytes).then(
      ({ hits, resetAt }) => hits >= rule.limit && store.refused.remember(key, resetAt),
      () => undefined,
    );
  });
  return refuseWhenSpent;
}
