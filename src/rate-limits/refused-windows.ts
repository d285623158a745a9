/**
 * Keys this process already saw PostgreSQL refuse, each until its window resets. PostgreSQL stays the
 * one count shared by every process; this only spares it (and authentication) the requests that can
 * only be refused: a fixed window over its limit stays over it until it resets, so answering them from
 * memory gives PostgreSQL's answer without a statement. Oldest first out past `maxEntries`: a flood of
 * distinct refused keys cannot grow the process, it only costs them their statement again.
 */
export class RefusedWindows {
  /** Key → the time its window resets (ms since the epoch). */
  private readonly entries = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  /** When the key's refused window resets; undefined when this process knows of none. */
  resetAt(key: string): Date | undefined {
    const resetAt = this.entries.get(key);
    if (resetAt !== undefined && resetAt > Date.now()) return new Date(resetAt);
    if (resetAt !== undefined) this.entries.delete(key);
    return undefined;
  }

  remember(key: string, resetAt: Date): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, resetAt.getTime());
  }

  get size(): number {
    return this.entries.size;
  }
}
