interface Waiter {
  amount: number;
  admit(): void;
}

/**
 * Per process and per key (a tenant): how much work is in flight at once, each piece weighted by an
 * amount (1 for a request, the stored bytes for an answer's large fields). Work that does not fit
 * waits its turn, in order of arrival, for at most `maxWaitMs`. One piece is always let through when
 * the key has nothing in flight, so work larger than `max` still runs, alone.
 */
export class InFlightLimit {
  private readonly keys = new Map<string, { held: number; queue: Waiter[] }>();

  constructor(
    readonly max: number,
    readonly maxWaitMs: number,
  ) {}

  /**
   * Resolves `true` once `amount` more of `key`'s work may run (to be matched by `release` of the
   * same amount), or `false` after `maxWaitMs` without its turn (nothing to release then).
   */
  acquire(key: string, amount: number): Promise<boolean> {
    const state = this.keys.get(key) ?? { held: 0, queue: [] };
    this.keys.set(key, state);
    if (state.queue.length === 0 && this.fits(state.held, amount)) {
      state.held += amount;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        amount,
        admit: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        state.queue.splice(state.queue.indexOf(waiter), 1);
        this.forget(key, state);
        resolve(false);
      }, this.maxWaitMs);
      state.queue.push(waiter);
    });
  }

  release(key: string, amount: number): void {
    const state = this.keys.get(key);
    if (!state) return;
    state.held -= amount;
    while (state.queue.length > 0 && this.fits(state.held, state.queue[0]!.amount)) {
      const next = state.queue.shift()!;
      state.held += next.amount;
      next.admit();
    }
    this.forget(key, state);
  }

  /** What `key` has in flight now. */
  heldBy(key: string): number {
    return this.keys.get(key)?.held ?? 0;
  }

  private fits(held: number, amount: number): boolean {
    return held <= 0 || held + amount <= this.max;
  }

  private forget(key: string, state: { held: number; queue: Waiter[] }): void {
    if (state.held <= 0 && state.queue.length === 0) this.keys.delete(key);
  }
}
