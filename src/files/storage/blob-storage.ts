import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Receives one blob's bytes in order; `write` resolves when the chunk may be reused (backpressure). */
export interface BlobWriter {
  write(chunk: Buffer): Promise<void>;
  /** Every byte was written; the blob is readable once the surrounding transaction commits. */
  close(): Promise<void>;
}

/**
 * Where file content lives, keyed by the file's uuid. Writes take the EntityManager of the
 * transaction that also writes the file record, so a driver inside the database commits or rolls
 * back with it; a driver outside it cleans up in `discard` after a rollback.
 */
export interface BlobStorage {
  readonly name: 'postgres' | 'filesystem';
  /** `size`, when known, lets a driver store the last bytes without collecting them first. */
  create(em: EntityManager, key: string, size?: number): Promise<BlobWriter>;
  /**
   * The content, streamed; fails before yielding anything when the blob is missing. `size`, when
   * known, lets a driver stop after the last bytes instead of asking for more.
   */
  open(em: EntityManager, key: string, size?: number): Promise<Readable>;
  /** Drops a blob within the current transaction: one just written that is not kept (a duplicate), or purged content. */
  remove(em: EntityManager, key: string): Promise<void>;
  /** After a rollback: removes blobs this driver keeps outside the database. */
  discard(keys: string[]): Promise<void>;
}
