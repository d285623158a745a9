import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { FileRuntime } from './file-runtime.js';

const BATCH = 100;

/**
 * Claims deleted files past the grace period whose content nothing needs any more: no live
 * certificate names them (as its source or as one of its documents) and no live file of the tenant
 * holds the same content. SKIP LOCKED lets several processes sweep at once, each taking other rows.
 */
const CLAIM = `update "files" set "purged_at" = clock_timestamp()
  where "uuid" in (
    select f."uuid" from "files" f
    where f."deleted_at" is not null and f."purged_at" is null
      and f."deleted_at" <= clock_timestamp() - make_interval(secs => ?)
      and not exists (select 1 from "certificates" c where c."source_file_uuid" = f."uuid" and c."deleted_at" is null)
      and not exists (
        select 1 from "certificate_documents" d join "certificates" c on c."uuid" = d."certificate_uuid"
        where d."file_uuid" = f."uuid" and d."deleted_at" is null and c."deleted_at" is null)
      and not exists (select 1 from "files" l where l."tenant_uuid" = f."tenant_uuid" and l."hash" = f."hash" and l."deleted_at" is null)
    order by f."deleted_at"
    limit ?
    for update of f skip locked)
  returning "uuid", "tenant_uuid", "storage"`;

/** One batch in one transaction: the rows are marked and their content removed, or neither. */
async function purgeBatch(em: EntityManager, runtime: FileRuntime, graceMs: number): Promise<number> {
  return em.transactional(async (tx) => {
    const claimed = await tx
      .getConnection()
      .execute<{ uuid: string; tenant_uuid: string; storage: string }[]>(CLAIM, [graceMs / 1000, BATCH], 'all', tx.getTransactionContext());
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
