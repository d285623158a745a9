import { createHash } from 'node:crypto';
import { SNIFF_BYTES } from './file-type.js';

/** What one pass over a file's bytes learns: its size, its SHA-256 and the head its type is recognised by. */
export interface ContentFacts {
  size: number;
  /** SHA-256, lowercase hex. */
  hash: string;
  /** The first SNIFF_BYTES bytes (all of them for a shorter file). */
  head: Buffer;
}

/**
 * Learns a file's facts from its bytes as they pass, wherever the first pass is: the REST spool while
 * the client sends (file-spool.ts), otherwise the intake while storing. Chunks may be reused by their
 * owner afterwards; the head is copied.
 */
export class ContentDigest {
  private readonly sha256 = createHash('sha256');
  private readonly head = Buffer.allocUnsafe(SNIFF_BYTES);
  private headBytes = 0;
  private size = 0;

  update(chunk: Buffer): void {
    this.size += chunk.length;
    this.sha256.update(chunk);
    if (this.headBytes < SNIFF_BYTES) this.headBytes += chunk.copy(this.head, this.headBytes, 0, SNIFF_BYTES - this.headBytes);
  }

  /** Once, after the last byte. */
  finish(): ContentFacts {
    return { size: this.size, hash: this.sha256.digest('hex'), head: this.head.subarray(0, this.headBytes) };
  }
}
