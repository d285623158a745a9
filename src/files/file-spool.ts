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

/** Writes every buffer at `position`, however many calls the kernel takes. */
async function writeAll(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  let written = (await handle.writev(buffers, position)).bytesWritten;
  if (written === total) return;
  const rest = Buffer.concat(buffers, total);
  while (written < total) written += (await handle.write(rest, written, total - written, position + written)).bytesWritten;
}

/**
 * One uploaded file part on its way to disk, for the REST transport (rest-compat/multipart.ts): the
 * content goes to an anonymous temporary file (unlinked as soon as it is open, so nothing outlives the
 * process) while its size, SHA-256 and head are learnt in the same pass. Once finished, the upload
 * service reads it back in blocks of the pool's size (one PostgreSQL chunk, which the default driver
 * stores as it is) into one pooled buffer, without hashing it again. Memory: at most BUFFER_BYTES
 * waiting for the disk, and one block while it is read back.
 */
export class FileSpool extends Writable {
  private handle?: FileHandle;
  private written = 0;
  private readonly digest = new ContentDigest();
  private facts?: ContentFacts;

  constructor() {
    // Not destroyed when finished: the file is read back afterwards, and goes when its owner destroys the spool.
    super({ highWaterMark: BUFFER_BYTES, decodeStrings: true, autoDestroy: false });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    const file = path.join(tmpdir(), `upload-${randomBytes(16).toString('hex')}.tmp`);
    open(file, 'wx+', 0o600)
      .then((handle) => {
        this.handle = handle;
        return unlink(file);
      })
      .then(() => callback(), callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this._writev([{ chunk }], callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    const buffers = chunks.map(({ chunk }) => chunk);
    const position = this.written;
    for (const buffer of buffers) {
      this.digest.update(buffer);
      this.written += buffer.length;
    }
    writeAll(this.handle!, buffers, position).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.facts = this.digest.finish();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = undefined;
    // FileHandle.close waits for the operation in flight, if any.
    (handle?.close() ?? Promise.resolve()).then(
      () => callback(error),
      () => callback(error),
    );
  }

  /** The part as the upload service reads it; call once every byte has been written (after `finish`). */
  incoming(filename: string, blocks: BlockPool): IncomingFile {
    if (!this.facts) throw new Error('a spooled file is read only after its last byte was written');
    return { filename, facts: this.facts, content: this.blocks(blocks) };
  }

  /** The spooled bytes in order, each block read into the same pooled buffer. */
  private async *blocks(pool: BlockPool): AsyncGenerator<Buffer> {
    const buffer = pool.take();
    let at = 0;
    try {
      while (at < this.written) {
        if (!this.handle) throw new Error('the spooled file was released before it was read');
        const { bytesRead } = await this.handle.read(buffer, 0, Math.min(buffer.length, this.written - at), at);
        if (bytesRead === 0) throw new Error(`the spooled file ended at ${at} of ${this.written} bytes`);
        at += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      // Read to the end, every block was stored before the next was asked for; a reader that stopped
      // early may have left a write in flight (a query on its way), so that buffer is not reused.
      if (at === this.written) pool.give(buffer);
    }
  }
}

/**
 * What an `Upload` value of the REST transport resolves to (rest-compat/multipart.ts): a part this
 * service spooled itself. GraphQL multipart parts are graphql-upload-ts's `FileUpload`s.
 */
export interface SpooledUpload {
  readonly filename: string;
  readonly spool: FileSpool;
}
