import type { Orm } from '../db/orm.js';
import { RefusedWindows } from './refused-windows.js';

export interface WindowCount {
  /** Hits (or units of cost) in the current window, this one included. */
  hits: number;
  resetAt: Date;
}

// One statement, atomic under concurrency from any number of processes: the row lock taken by
// `on conflict do update` serialises hits on one key, and an expired window restarts at this hit's amount.
const HIT = `
  insert into rate_limit_buckets (key, hits, reset_at) values (?, ?, now() + make_interval(secs => ?))
  on conflict (key) do update set
    hits = case when rate_limit_buckets.reset_at <= now() then excluded.hits else least(rate_limit_buckets.hits::bigint + excluded.hits, 2147483647) end,
    reset_at = case when rate_limit_buckets.reset_at <= now() then excluded.reset_at else rate_limit_buckets.reset_at end
  returning hits, reset_at`;

// A metered key keeps, instead of a count, the time its bucket is full again (the generic cell rate
// algorithm): a charge is admitted while that time is at most `burst` ahead of now, and moves it on by
// the charge's cost; a refused charge leaves it as it was. `hits` says whether this charge was admitted.
const METER = `
  insert into rate_limit_buckets (key, hits, reset_at) values (?, 1, now() + make_interval(secs => ?))
  on conflict (key) do update set
    hits = (rate_limit_buckets.reset_at <= now() + make_interval(secs => ?))::int,
    reset_at = case when rate_limit_buckets.reset_at <= now() + make_interval(secs => ?)
      then greatest(rate_limit_buckets.reset_at, now()) + make_interval(secs => ?) else rate_limit_buckets.reset_at end
  returning hits, reset_at`;

const REFUND = `update rate_limit_buckets set hits = greatest(hits - 1, 0) where key = ? and reset_at > now()`;

const PEEK = `select hits, reset_at from rate_limit_buckets where key = ? and reset_at > now()`;

const SWEEP = `delete from rate_limit_buckets where reset_at <= now()`;

interface BucketRow {
  hits: number;
  reset_at: Date | string;
}

const count = (row: BucketRow): WindowCount => ({ hits: Number(row.hits), resetAt: new Date(row.reset_at) });

export interface MeterReading {
  admitted: boolean;
  /** When the key's bucket is full again (a key with nothing charged is full now). */
  fullAt: Date;
}

/** Fixed-window counters (and metered keys, `meter`) in PostgreSQL, so every server process counts against the same limits. */
export class RateLimitStore {
  private lastSweep = Date.now();
  /** What this process already knows is refused, answered without a statement (refused-windows.ts). */
  readonly refused = new RefusedWindows();

  constructor(
    private readonly orm: Orm,
    /** How often a process deletes windows that have reset, so buckets of past keys do not pile up. */
    private readonly sweepEveryMs = 60_000,
  ) {}

  /** Adds `amount` (one hit, or a cost such as worker milliseconds) to the key's current window. */
  async hit(key: string, windowMs: number, amount = 1): Promise<WindowCount> {
    await this.sweepWhenDue();
    const [row] = await this.execute(HIT, [key, Math.min(Math.max(1, Math.ceil(amount)), 2 ** 31 - 1), windowMs / 1000]);
    return count(row!);
  }

  /**
   * Charges `costMs` of a metered key's rate (a token bucket that refills one millisecond a millisecond),
   * admitted while the bucket's debt is at most `burstMs`; a refused charge costs nothing.
   */
  async meter(key: string, costMs: number, burstMs: number): Promise<MeterReading> {
    await this.sweepWhenDue();
    const cost = Math.max(0, costMs) / 1000;
    const burst = Math.max(0, burstMs) / 1000;
    const [row] = await this.execute(METER, [key, cost, burst, burst, cost]);
    return { admitted: Number(row!.hits) === 1, fullAt: new Date(row!.reset_at) };
  }

  /** Takes back one hit of the current window (a token request that turned out to succeed). */
  async refund(key: string): Promise<void> {
    await this.orm.em.getConnection().execute(REFUND, [key], 'run');
  }

  /** The current window's count without adding to it; `hits: 0` when none is open. */
  async peek(key: string): Promise<WindowCount | { hits: 0; resetAt: null }> {
    const [row] = await this.execute(PEEK, [key]);
    return row ? count(row) : { hits: 0, resetAt: null };
  }

  async sweep(): Promise<number> {
    const result = await this.orm.em.getConnection().execute(SWEEP, [], 'run');
    return (result as { affectedRows?: number }).affectedRows ?? 0;
  }

  private async sweepWhenDue(): Promise<void> {
    if (Date.now() - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = Date.now();
    await this.sweep();
  }

  private execute(sql: string, params: unknown[]): Promise<BucketRow[]> {
    return this.orm.em.getConnection().execute<BucketRow[]>(sql, params, 'all');
  }
}
