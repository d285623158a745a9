import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type ControlledTransaction, type Kysely } from 'kysely';
import type { BlobStorage, BlobWriter } from './blob-storage.js';

/** Size of one `file_chunks` row: few round trips per file, little memory per upload in flight. */
export const CHUNK_BYTES = 512 * 1024;

type Executor = Pick<Kysely<unknown>, 'executeQuery'>;

/**
 * Chunk statements go straight to the driver with bound parameters, so content travels as binary
 * bytea parameters and never as SQL text (MikroORM's `execute` inlines parameters into the SQL).
 */
function executor(em: EntityManager): Executor {
  return em.getTransactionContext<ControlledTransaction<unknown>>() ?? (em.getConnection().getClient() as Executor);
}

function transaction(em: EntityManager): Executor {
  const trx = em.getTransactionContext<ControlledTransaction<unknown>>();
  if (!trx) throw new Error('blob writes must run inside the transaction that writes the file record');
  return trx;
}

/**
 * Inserts the content in CHUNK_BYTES rows. At a chunk boundary, whole chunks of a write, and the
 * blob's last bytes when its size is known, go as they are (the REST spool reads back in such
 * blocks); anything else fills one chunk-sized buffer of its own.
 */
class ChunkWriter implements BlobWriter {
  private chunk?: Buffer;
  private filled = 0;
  private seq = 0;
  /** Bytes inserted so far, the filled part of `chunk` excluded. */
  private inserted = 0;

  constructor(
    private readonly db: Executor,
    private readonly key: string,
    private readonly size?: number,
  ) {}

  async write(data: Buffer): Promise<void> {
    for (let at = 0; at < data.length;) {
      const rest = data.length - at;
      if (this.filled === 0 && (rest >= CHUNK_BYTES || this.inserted + rest === this.size)) {
        const end = at + Math.min(rest, CHUNK_BYTES);
        await this.insert(data.subarray(at, end));
        at = end;
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

  private async insertFilled(): Promise<void> {
    await this.insert(this.chunk!.subarray(0, this.filled));
    this.filled = 0;
  }

  /** The server has received the parameter once the statement completes, so the buffer is free again. */
  private async insert(data: Buffer): Promise<void> {
    await this.db.executeQuery(CompiledQuery.raw('insert into "file_chunks" ("file_uuid", "seq", "data") values ($1, $2, $3)', [this.key, this.seq++, data]));
    this.inserted += data.length;
  }
}

async function chunkAt(db: Executor, key: string, seq: number): Promise<Buffer | undefined> {
  const result = await db.executeQuery<{ data: Buffer }>(
    CompiledQuery.raw('select "data" from "file_chunks" where "file_uuid" = $1 and "seq" = $2', [key, seq]),
  );
  return result.rows[0]?.data;
}

/** Default driver: content in `file_chunks`, so API nodes stay stateless and uploads are transactional. */
export class PostgresBlobStorage implements BlobStorage {
  readonly name = 'postgres' as const;

  async create(em: EntityManager, key: string, size?: number): Promise<BlobWriter> {
    return new ChunkWriter(transaction(em), key, size);
  }

  async open(em: EntityManager, key: string): Promise<Readable> {
    const db = executor(em);
    const first = await chunkAt(db, key, 0);
    if (!first) throw new Error(`blob ${key} is missing from file_chunks`);
    // One chunk a query, fetched only when the reader wants more: memory stays at a chunk or two.
    async function* chunks() {
      yield first!;
      for (let seq = 1; ; seq++) {
        const data = await chunkAt(db, key, seq);
        if (!data) return;
        yield data;
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: CHUNK_BYTES });
  }

  async remove(em: EntityManager, key: string): Promise<void> {
    await transaction(em).executeQuery(CompiledQuery.raw('delete from "file_chunks" where "file_uuid" = $1', [key]));
  }

  async discard(): Promise<void> {
    // Chunks were written in the rolled-back transaction: nothing is left to remove.
  }
}
