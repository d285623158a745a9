import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Receives one blob's bytes in order; `write` resolves when the chunk may be reused (backpressure). */
export interface BlobWriter {
  write(chunk: Buffer): Promise<void>;
  /** Every byte was written; the blob is readable once the surrounding transaction commits. */
  close(): Promise<void>;
}

/** One blob: the file's uuid, and its tenant (object stores put it in the key's path). */
export interface BlobKey {
  tenant: string;
  uuid: string;
}

/**
 * Where file content lives, keyed by the file's uuid. Writes take the EntityManager of the
 * transaction that also writes the file record, so a driver inside the database commits or rolls
 * back with it; a driver outside it cleans up in `discard` after a rollback.
 */
export interface BlobStorage {
  readonly name: 'postgres' | 'filesystem' | 's3';
  /** `size`, when known, lets a driver store the last bytes without collecting them first. */
  create(em: EntityManager, key: BlobKey, size?: number): Promise<BlobWriter>;
  /**
   * The content, streamed; fails before yielding anything when the blob is missing. `size`, when
   * known, lets a driver stop after the last bytes instead of asking for more.
   */
  open(em: EntityManager, key: BlobKey, size?: number): Promise<Readable>;
  /** Drops a blob within the current transaction: one just written that is not kept (a duplicate), or purged content. */
  remove(em: EntityManager, key: BlobKey): Promise<void>;
  /** After a rollback: removes blobs this driver keeps outside the database. */
  discard(keys: BlobKey[]): Promise<void>;
  /**
   * A short-lived address the client may fetch the content from directly, when the driver offers one
   * (S3_PRESIGNED_DOWNLOADS); the response carries `headers` (Content-Type, Content-Disposition).
   */
  directUrl?(key: BlobKey, headers: { contentType: string; contentDisposition: string }): Promise<string>;
}
