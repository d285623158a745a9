import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type ControlledTransaction, type Kysely } from 'kysely';

/** Rows one insert takes at most, by the number of rows. */
const INSERTS = [
  'insert into "file_chunks" ("file_uuid", "seq", "data") values ($1, $2, $3)',
  'insert into "file_chunks" ("file_uuid", "seq", "data") values ($1, $2, $3), ($1, $4, $5)',
];

/** The most chunks one insert stores. */
export const MAX_CHUNKS_PER_INSERT = INSERTS.length;

/** Where chunk statements run: the EntityManager's transaction, or the pool. */
export type ChunkExecutor = Pick<Kysely<unknown>, 'executeQuery'>;

/**
 * Chunk statements go straight to the driver with bound parameters, so content travels as binary
 * bytea parameters and never as SQL text (MikroORM's `execute` inlines parameters into the SQL).
 */
export function chunkExecutor(em: EntityManager): ChunkExecutor {
  return em.getTransactionContext<ControlledTransaction<unknown>>() ?? (em.getConnection().getClient() as ChunkExecutor);
}

/** The EntityManager's transaction: chunks are written and removed only with the file record. */
export function chunkTransaction(em: EntityManager): ChunkExecutor {
  const trx = em.getTransactionContext<ControlledTransaction<unknown>>();
  if (!trx) throw new Error('blob writes must run inside the transaction that writes the file record');
  return trx;
}

/** Inserts `rows` (at most MAX_CHUNKS_PER_INSERT) as the blob's chunks from `firstSeq` on, in one statement. */
export async function insertChunks(db: ChunkExecutor, key: string, firstSeq: number, rows: Buffer[]): Promise<void> {
  const parameters: unknown[] = [key];
  let seq = firstSeq;
  for (const row of rows) parameters.push(seq++, row);
  await db.executeQuery(CompiledQuery.raw(INSERTS[rows.length - 1]!, parameters));
}

export async function chunkAt(db: ChunkExecutor, key: string, seq: number): Promise<Buffer | undefined> {
  const result = await db.executeQuery<{ data: Buffer }>(
    CompiledQuery.raw('select "data" from "file_chunks" where "file_uuid" = $1 and "seq" = $2', [key, seq]),
  );
  return result.rows[0]?.data;
}

export async function removeChunks(db: ChunkExecutor, key: string): Promise<void> {
  await db.executeQuery(CompiledQuery.raw('delete from "file_chunks" where "file_uuid" = $1', [key]));
}
