import { setTimeout as pause } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { clientAddress } from './client-address.js';
import type { RateLimitStore } from './rate-limit.repository.js';
import { consume, decide, isOff, type RateLimit, type RateLimitDecision } from './rate-limiter.js';

/* The HTTP face of the limits: a request rate per client or address, and a tenant's rate of answer bytes, each refused as 429 with Retry-After. */

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

export const RESPONSE_BYTES_SPENT = 'This tenant has read too many bytes of answers this minute; try again later.';

/**
 * How far ahead of its rate a tenant may read: a sixteenth of a minute's bytes (4 MiB at the default).
 * Any number of small answers, but a full page of design configs at the limit (6.3 MB) overdraws it, so a
 * burst of such pages sent at once is served one, not two at once (two cost the other tenants' requests
 * up to 200 ms in the neighbours bench, one about what a quiet phase shows).
 */
const BURST_SHARE = 1 / 16;

/**
 * A tenant's rate of answer bytes (RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE), REST and GraphQL alike, spent
 * by the stored sizes of the large fields (free JSON such as design configs) an answer is about to read.
 * Metered as a token bucket that refills at that rate, not a window that refills all at once: with a
 * window of 64 MiB a minute the neighbours' attacker was served ten 6.3 MB pages in its first 2.5 s,
 * the other tenants' slowest requests all falling in them (docs/benchmarks.md, Neighbours); metered, it
 * gets a page every few seconds. `refuseSpentResponseBytes` refuses a request arriving while this
 * process knows the bucket is overdrawn; `chargeResponseBytes` charges an answer's bytes in one
 * statement when it is admitted to read them (ResponseBudget.admit), and refuses it if the bucket was
 * already overdrawn past the burst by then. Charged before the answer is read, not after it has gone, so
 * answers running at once cannot all pass: one answer overshoots by at most its own bytes (RESPONSE_MAX_BYTES).
 */
export function chargeResponseBytes(store: RateLimitStore, rule: RateLimit, tenantUuid: string, res: Response): (bytes: number) => Promise<void> {
  if (isOff(rule)) return async () => undefined;
  const key = `${rule.name}:${tenantUuid}`;
  const msPerByte = rule.windowMs / rule.limit;
  const burstMs = rule.windowMs * BURST_SHARE;
  return async (bytes) => {
    const known = store.refused.resetAt(key);
    if (known) refuse(rule, known, res);
    const { admitted, fullAt } = await store.meter(key, Math.ceil(bytes) * msPerByte, burstMs);
    const roomAt = new Date(fullAt.getTime() - burstMs);
    if (roomAt.getTime() > Date.now()) store.refused.remember(key, roomAt);
    if (!admitted) refuse(rule, roomAt, res);
  };
}

/**
 * 429 with Retry-After, before any statement, for a tenant whose bucket this process saw overdrawn, held
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
