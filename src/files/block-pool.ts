/**
 * Chunk-sized buffers that reading spooled uploads back reuses: a buffer per file, dropped after
 * it, is memory only a major GC gives back. One pool per service (FileRuntime); it keeps at most
 * `keep` idle buffers, so a burst of uploads grows memory only while it lasts.
 */
export class BlockPool {
  private readonly idle: Buffer[] = [];

  constructor(
    readonly blockBytes: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafe(this.blockBytes);
  }

  /** Only once nothing refers to the block any more: its next taker overwrites it. */
  give(block: Buffer): void {
    if (this.idle.length < this.keep && block.length === this.blockBytes) this.idle.push(block);
  }
}
