import type { RateLimitStore } from './rate-limit.repository.js';

/** One limit: at most `limit` hits per key in each window; `limit` 0 turns it off. */
export interface RateLimit {
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: Date;
  /** Whole seconds until the window resets, at least 1. */
  retryAfter: number;
}

export const perMinute = (name: string, limit: number): RateLimit => ({ name, limit, windowMs: 60_000 });

export const isOff = (rule: RateLimit) => rule.limit <= 0;

/** Counts one hit of `subject` (a client id, an address) against `rule`. */
export async function consume(store: RateLimitStore, rule: RateLimit, subject: string): Promise<RateLimitDecision> {
  const { hits, resetAt } = await store.hit(`${rule.name}:${subject}`, rule.windowMs);
  return decide(rule, hits, resetAt);
}

export function decide(rule: RateLimit, hits: number, resetAt: Date): RateLimitDecision {
  return {
    allowed: hits <= rule.limit,
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - hits),
    resetAt,
    retryAfter: Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000)),
  };
}
