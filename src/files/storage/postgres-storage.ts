import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BlobKey, BlobStorage, BlobWriter } from './blob-storage.js';
import { chunkAt, type ChunkExecutor, chunkExecutor, chunkTransaction, insertChunks, MAX_CHUNKS_PER_INSERT, removeChunks } from './file-chunk.repository.js';

/** Size of one `file_chunks` row: few round trips per file, little memory per upload in flight. */
export const CHUNK_BYTES = 512 * 1024;

/** Content that one statement stores when written in one piece at a chunk boundary (see ChunkWriter). */
export const INSERT_BYTES = MAX_CHUNKS_PER_INSERT * CHUNK_BYTES;

/**
 * Inserts the content in CHUNK_BYTES rows. At a chunk boundary, whole chunks of a write, and the
 * blob's last bytes when its size is known, go as they are, up to INSERT_BYTES a statement (the REST
 * spool reads back in such blocks); anything else fills one chunk-sized buffer of its own.
 */
class ChunkWriter implements BlobWriter {
  private chunk?: Buffer;
  private filled = 0;
  private seq = 0;
  /** Bytes inserted so far, the filled part of `chunk` excluded. */
  private inserted = 0;

  constructor(
    private readonly db: ChunkExecutor,
    private readonly key: string,
    private readonly size?: number,
  ) {}

  async write(data: Buffer): Promise<void> {
    for (let at = 0; at < data.length;) {
      const rows = this.filled === 0 ? this.rowsAt(data, at) : [];
      if (rows.length > 0) {
        await this.insert(...rows);
        at += rows.reduce((sum, row) => sum + row.length, 0);
        continue;
      }
      const chunk = (this.chunk ??= Buffer.allocUnsafe(CHUNK_BYTES));
      const copied = data.copy(chunk, this.filled, at);
      this.filled += copied;
      at += copied;
      if (this.filled === CHUNK_BYTES) await this.insertFilled();
    }
  }

  async close(): Promise<void> {
    if (this.filled > 0) await this.insertFilled();
  }

  /** Rows of `data` from `at` that can go as they are: whole chunks, and the rest when it ends the blob. */
  private rowsAt(data: Buffer, at: number): Buffer[] {
    const rows: Buffer[] = [];
    for (let end = at; rows.length < MAX_CHUNKS_PER_INSERT && end < data.length;) {
      const left = data.length - end;
      if (left < CHUNK_BYTES && this.inserted + (end - at) + left !== this.size) break;
      rows.push(data.subarray(end, end + Math.min(left, CHUNK_BYTES)));
      end += rows.at(-1)!.length;
    }
    return rows;
  }

  private async insertFilled(): Promise<void> {
    await this.insert(this.chunk!.subarray(0, this.filled));
    this.filled = 0;
  }

  /** The server has received the parameters once the statement completes, so the buffers are free again. */
  private async insert(...rows: Buffer[]): Promise<void> {
    const firstSeq = this.seq;
    this.seq += rows.length;
    await insertChunks(this.db, this.key, firstSeq, rows);
    this.inserted += rows.reduce((sum, row) => sum + row.length, 0);
  }
}

/** Default driver: content in `file_chunks`, so API nodes stay stateless and uploads are transactional. */
export class PostgresBlobStorage implements BlobStorage {
  readonly name = 'postgres' as const;

  async create(em: EntityManager, { uuid: key }: BlobKey, size?: number): Promise<BlobWriter> {
    return new ChunkWriter(chunkTransaction(em), key, size);
  }

  async open(em: EntityManager, { uuid: key }: BlobKey, size?: number): Promise<Readable> {
    const db = chunkExecutor(em);
    const first = await chunkAt(db, key, 0);
    if (!first) throw new Error(`blob ${key} is missing from file_chunks`);
    // One chunk a query, fetched only when the reader wants more: memory stays at a chunk or two.
    // Counting bytes rather than chunks: a file with one chunk costs one query, whatever size its chunks were written in.
    async function* chunks() {
      yield first!;
      for (let seq = 1, read = first!.length; size === undefined || read < size; seq++) {
        const data = await chunkAt(db, key, seq);
        if (!data) return;
        read += data.length;
        yield data;
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: CHUNK_BYTES });
  }

  async remove(em: EntityManager, { uuid: key }: BlobKey): Promise<void> {
    await removeChunks(chunkTransaction(em), key);
  }

  async discard(): Promise<void> {
    // Chunks were written in the rolled-back transaction: nothing is left to remove.
  }
}
