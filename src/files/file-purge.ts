import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { FileRuntime } from './file-runtime.js';
import { claimPurgeableFiles } from './file.repository.js';

const BATCH = 100;

/** One batch in one transaction: the rows are marked and their content removed, or neither. */
async function purgeBatch(em: EntityManager, runtime: FileRuntime, graceMs: number): Promise<number> {
  return em.transactional(async (tx) => {
    const claimed = await claimPurgeableFiles(tx, graceMs / 1000, BATCH);
    for (const { uuid, tenant_uuid: tenant, storage } of claimed) await runtime.driver(storage).remove(tx, { tenant, uuid });
    return claimed.length;
  });
}

/** Removes the stored content of deleted files once `graceMs` has passed; returns how many. */
export async function purgeDeletedFiles(orm: Orm, runtime: FileRuntime, graceMs: number): Promise<number> {
  let total = 0;
  for (let count = BATCH; count === BATCH; total += count) count = await purgeBatch(orm.em.fork(), runtime, graceMs);
  return total;
}
