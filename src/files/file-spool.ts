import { randomBytes } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { BlockPool } from './block-pool.js';
import { ContentDigest, type ContentFacts } from './content-digest.js';
import type { IncomingFile } from './file-intake.js';

/** Bytes held while a write to disk is in flight; they go to disk together in one writev. */
const BUFFER_BYTES = 256 * 1024;

/** A part's first bytes kept in pooled blocks rather than on disk, when the pool lends them (1 MiB). */
export const MEMORY_BLOCKS_PER_PART = 1;

/** An anonymous temporary file: unlinked as soon as it is open, so nothing outlives the process. */
async function openAnonymous(): Promise<FileHandle> {
  const file = path.join(tmpdir(), `upload-${randomBytes(16).toString('hex')}.tmp`);
  const handle = await open(file, 'wx+', 0o600);
  await unlink(file).catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  return handle;
}

/** Writes every buffer at `position`, however many calls the kernel takes. */
async function writeAll(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  let written = (await handle.writev(buffers, position)).bytesWritten;
  if (written === total) return;
  const rest = Buffer.concat(buffers, total);
  while (written < total) written += (await handle.write(rest, written, total - written, position + written)).bytesWritten;
}

/**
 * One uploaded file part on its way in, for both transports (src/http/multipart-form.ts): its first
 * MEMORY_BLOCKS_PER_PART blocks are copied into blocks lent by the pool, the rest (or all of it when
 * the pool lends no more) goes to an anonymous temporary file; size, SHA-256 and head are learnt in
 * the same pass. Once finished, the upload service reads it back in blocks of the pool's size (what
 * the default driver stores in one statement, as it is), without hashing it again. Memory: the
 * lent blocks, at most BUFFER_BYTES waiting for the disk, and one pooled block while the disk part
 * is read back. A small file never touches the disk.
 */
export class FileSpool extends Writable {
  private readonly digest = new ContentDigest();
  private facts?: ContentFacts;
  private readonly memory: Buffer[] = [];
  private memoryBytes = 0;
  /** Once a byte went to disk, every later byte does. */
  private spilled = false;
  private handle?: Promise<FileHandle>;
  private diskBytes = 0;
  private reading: 'no' | 'started' | 'done' = 'no';

  constructor(private readonly pool: BlockPool) {
    // Not destroyed when finished: the part is read back afterwards, and goes when its owner destroys the spool.
    super({ highWaterMark: BUFFER_BYTES, decodeStrings: true, autoDestroy: false });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this._writev([{ chunk }], callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    const toDisk: Buffer[] = [];
    for (const { chunk } of chunks) {
      this.digest.update(chunk);
      const kept = this.spilled ? 0 : this.keep(chunk);
      if (kept < chunk.length) toDisk.push(chunk.subarray(kept));
    }
    if (toDisk.length === 0) return callback();
    const position = this.diskBytes;
    this.diskBytes += toDisk.reduce((sum, buffer) => sum + buffer.length, 0);
    (this.handle ??= openAnonymous()).then((handle) => writeAll(handle, toDisk, position)).then(() => callback(), callback);
  }

  /** Copies what fits of `chunk` into memory blocks; returns the bytes kept. */
  private keep(chunk: Buffer): number {
    let kept = 0;
    while (kept < chunk.length) {
      const room = this.memory.length * this.pool.blockBytes - this.memoryBytes;
      if (room === 0) {
        const block = this.memory.length < MEMORY_BLOCKS_PER_PART ? this.pool.tryTake() : undefined;
        if (!block) break;
        this.memory.push(block);
        continue;
      }
      const copied = chunk.copy(this.memory.at(-1)!, this.pool.blockBytes - room, kept);
      kept += copied;
      this.memoryBytes += copied;
    }
    if (kept < chunk.length) this.spilled = true;
    return kept;
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.facts = this.digest.finish();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A read cut short may have left a block in a write still in flight: that block is not reused.
    const reusable = this.reading !== 'started';
    for (const block of this.memory.splice(0)) this.pool.give(block, reusable);
    const handle = this.handle;
    this.handle = undefined;
    // FileHandle.close waits for the operation in flight, if any.
    (handle?.then((opened) => opened.close()) ?? Promise.resolve()).then(
      () => callback(error),
      () => callback(error),
    );
  }

  /** The part as the upload service reads it; call once every byte has been written (after `finish`). */
  incoming(filename: string): IncomingFile {
    if (!this.facts) throw new Error('a spooled file is read only after its last byte was written');
    return { filename, facts: this.facts, content: this.blocks() };
  }

  /** The bytes in order: the memory blocks, then the disk part read block by block into one pooled buffer. */
  private async *blocks(): AsyncGenerator<Buffer> {
    this.reading = 'started';
    for (let index = 0, left = this.memoryBytes; left > 0; index++) {
      const block = this.memory[index];
      if (!block) throw new Error('the spooled file was released before it was read');
      const length = Math.min(left, block.length);
      left -= length;
      yield block.subarray(0, length);
    }
    if (this.diskBytes > 0) yield* this.diskBlocks();
    this.reading = 'done';
  }

  private async *diskBlocks(): AsyncGenerator<Buffer> {
    const buffer = this.pool.take();
    let at = 0;
    try {
      while (at < this.diskBytes) {
        const handle = await this.handle;
        if (!handle) throw new Error('the spooled file was released before it was read');
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, this.diskBytes - at), at);
        if (bytesRead === 0) throw new Error(`the spooled file ended at ${at} of ${this.diskBytes} bytes`);
        at += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      // Read to the end, every block was stored before the next was asked for.
      this.pool.give(buffer, at === this.diskBytes);
    }
  }
}

/**
 * What an `Upload` value resolves to, on REST and GraphQL alike (src/http/multipart-form.ts): a part
 * this service spooled itself.
 */
export interface SpooledUpload {
  readonly filename: string;
  readonly spool: FileSpool;
}
