/**
 * Chunk-sized buffers that uploads reuse instead of allocating per file: a buffer dropped after each
 * upload is memory only a major GC gives back. One pool per service (FileRuntime). It keeps at most
 * `keepIdle` idle buffers, and lends at most `lendable` through `tryTake` (the budget for file heads
 * kept in memory); `take` always gets one.
 */
export class BlockPool {
  private readonly idle: Buffer[] = [];
  private lent = 0;

  constructor(
    readonly blockBytes: number,
    private readonly keepIdle: number,
    private readonly lendable: number,
  ) {}

  take(): Buffer {
    this.lent++;
    return this.idle.pop() ?? Buffer.allocUnsafe(this.blockBytes);
  }

  /** A block unless `lendable` are out already. */
  tryTake(): Buffer | undefined {
    return this.lent < this.lendable ? this.take() : undefined;
  }

  /**
   * Returns a block taken here. `reusable` only once nothing refers to it any more (its next taker
   * overwrites it); otherwise it only leaves the count, and the GC has it.
   */
  give(block: Buffer, reusable: boolean): void {
    this.lent--;
    if (reusable && this.idle.length < this.keepIdle) this.idle.push(block);
  }
}
