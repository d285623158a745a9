/**
 * Per process and per key (a tenant): spreads large answers over time at `bytesPerSecond`. Each answer
 * reserves the next slot of the key's timeline, as long as its bytes take at that rate: the first one
 * of a quiet key starts at once, the next when the time its predecessor's bytes take has passed. A slot
 * further than `maxWaitMs` away is not reserved (the caller refuses instead).
 */
export class BytePace {
  private readonly due = new Map<string, number>();

  constructor(
    readonly bytesPerSecond: number,
    readonly maxWaitMs: number,
  ) {}

  /** Milliseconds to wait before `bytes` of `key` may go, its slot reserved; undefined (nothing reserved) past `maxWaitMs`. */
  reserve(key: string, bytes: number, now = Date.now()): number | undefined {
    const start = Math.max(now, this.due.get(key) ?? 0);
    if (start - now > this.maxWaitMs) return undefined;
    this.due.set(key, start + (bytes * 1000) / this.bytesPerSecond);
    if (this.due.size > 1_000) for (const [other, at] of this.due) if (at <= now) this.due.delete(other);
    return start - now;
  }
}
