import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../errors/domain-error.js';
import { tenantOf } from './file-records.js';

function run<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());
}

const UNITS: [number, string][] = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** 1073741824 → "1 GiB"; a size that is no whole unit stays in bytes. */
function size(bytes: number): string {
  const unit = UNITS.find(([factor]) => bytes >= factor && bytes % factor === 0);
  return unit ? `${bytes / unit[0]} ${unit[1]}` : `${bytes} bytes`;
}

export function quotaExceeded(quotaBytes: number, totalBytes: number): DomainError {
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The storage quota of this tenant (${size(quotaBytes)}) would be exceeded: its files would take ${totalBytes} bytes. Delete files to make room.`,
  );
}

/**
 * Refuses (413, rolling the upload back) when the tenant's live files, this transaction's new ones
 * included, exceed `quotaBytes`. The tenant row is locked first (FOR NO KEY UPDATE, which foreign-key
 * checks of concurrent inserts do not wait on), so concurrent uploads of one tenant count one after
 * the other, each seeing the others' committed files: two uploads cannot both take the last bytes.
 */
export async function enforceQuota(em: EntityManager, quotaBytes: number): Promise<void> {
  const tenant = tenantOf(em);
  await run(em, 'select 1 from "tenants" where "uuid" = ? for no key update', [tenant]);
  const [row] = await run<{ bytes: string }>(
    em,
    'select coalesce(sum("size"), 0)::bigint as "bytes" from "files" where "tenant_uuid" = ? and "deleted_at" is null',
    [tenant],
  );
  const total = Number(row?.bytes ?? 0);
  if (total > quotaBytes) throw quotaExceeded(quotaBytes, total);
}
