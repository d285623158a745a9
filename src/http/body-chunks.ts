import { isArrayBuffer } from 'node:util/types';

/**
 * Request body chunks handed back to the allocator as soon as nothing uses them any more, rather than
 * when V8 next collects them. Node copies every chunk of an HTTP body into memory of its own (up to
 * 64 KiB each) that only a garbage collection frees, and V8 starts one for such memory only once about
 * 64 MiB of it has piled up; under four concurrent 20 MiB uploads that pile grew the process by
 * ≈ 70 MiB, and glibc kept the grown heap afterwards. A chunk freed once stored is reused by the next.
 *
 * Each chunk counts its holders: the parser until its slices have moved on, and every slice handed to
 * a writer until the writer is done with it. The last release detaches the chunk's ArrayBuffer, which
 * frees its memory at once; every Buffer over it reads as empty from then on, so a holder must never
 * be released early. Chunks that share their ArrayBuffer with other data are not counted at all.
 */
export class BodyChunks {
  private readonly holders = new Map<ArrayBuffer, number>();

  /** Starts counting a chunk, with its first holder, when it owns all of its memory. */
  own(chunk: Buffer): void {
    const memory = chunk.buffer;
    // isArrayBuffer, not instanceof: Node's chunks come from its own realm (jest runs tests in another).
    if (isArrayBuffer(memory) && !memory.resizable && chunk.byteOffset === 0 && chunk.byteLength === memory.byteLength) this.holders.set(memory, 1);
  }

  /** One more holder of the chunk `view` is part of (a no-op for memory not counted here). */
  hold(view: Buffer): void {
    const count = this.holders.get(view.buffer as ArrayBuffer);
    if (count !== undefined) this.holders.set(view.buffer as ArrayBuffer, count + 1);
  }

  /** One holder less; the last one frees the chunk's memory. */
  release(view: Buffer): void {
    const memory = view.buffer as ArrayBuffer;
    const count = this.holders.get(memory);
    if (count === undefined) return;
    if (count > 1) {
      this.holders.set(memory, count - 1);
      return;
    }
    this.holders.delete(memory);
    memory.transfer(0);
  }

  /** Stops counting: whatever is still held is left to the garbage collector (a request cut short). */
  forget(): void {
    this.holders.clear();
  }
}
