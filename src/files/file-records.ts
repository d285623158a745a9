// The statements on `files` that must be single conditional SQL statements to be race-free (dedup
// insert, take, release). Every one names the tenant explicitly: raw SQL bypasses the ORM's filters.
import type { EntityManager } from '@mikro-orm/postgresql';
import { tenantOf } from '../db/tenant-scope.js';
import { StoredFile } from './file.entity.js';
import type { FileType } from './file-type.js';

function run<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());
}

export interface NewFileRecord {
  uuid: string;
  originalName: string;
  type: FileType;
  size: number;
  hash: string;
  storage: string;
  /** For server-generated files born attached to a certificate. */
  usedByUuid?: string;
}

const COLUMNS = `("uuid", "tenant_uuid", "original_name", "mime_type", "extension", "size", "hash", "storage", "used_at", "used_by_uuid", "created_at", "updated_at")`;
/** With `tenantFromLock` the tenant column comes out of the `"tenant"` lock CTE (see `insertUnlessDuplicate`). */
const valuesOf = (used: boolean, tenantFromLock = false) =>
  `(?, ${tenantFromLock ? '(select "uuid" from "tenant")' : '?'}, ?, ?, ?, ?, ?, ?, ${used ? 'clock_timestamp()' : 'null'}, ?, clock_timestamp(), clock_timestamp())`;
const LOCK_TENANT = 'with "tenant" as (select "uuid" from "tenants" where "uuid" = ? for no key update)';
const UNLESS_DUPLICATE = `on conflict ("tenant_uuid", "hash") where "deleted_at" is null do nothing`;

const parametersOf = (tenant: string, file: NewFileRecord) => [
  file.uuid,
  tenant,
  file.originalName,
  file.type.mimeType,
  file.type.extension,
  file.size,
  file.hash,
  file.storage,
  file.usedByUuid ?? null,
];

/**
 * Inserts the record unless the tenant already has live content with this hash, and returns the uuid
 * that holds the content: the new one, or the existing one. A concurrent upload of the same bytes
 * waits on the unique index until the first commits, then takes the winner's record. With
 * `lockTenant`, the same statement first locks the tenant row (see storage-quota.ts).
 */
export async function insertUnlessDuplicate(em: EntityManager, file: NewFileRecord, { lockTenant = false } = {}): Promise<string> {
  const tenant = tenantOf(em);
  const insert = `insert into "files" ${COLUMNS} values ${valuesOf(file.usedByUuid !== undefined, lockTenant)} ${UNLESS_DUPLICATE} returning "uuid"`;
  const sql = lockTenant ? `${LOCK_TENANT} ${insert}` : insert;
  const [uuid, , ...rest] = parametersOf(tenant, file);
  const parameters = lockTenant ? [tenant, uuid, ...rest] : parametersOf(tenant, file);
  // A winner soft-deleted between our conflict and our lookup frees the hash again: try once more.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [inserted] = await run<{ uuid: string }>(em, sql, parameters);
    if (inserted) return inserted.uuid;
    const [existing] = await run<{ uuid: string }>(em, 'select "uuid" from "files" where "tenant_uuid" = ? and "hash" = ? and "deleted_at" is null', [
      tenant,
      file.hash,
    ]);
    if (existing) return existing.uuid;
  }
  throw new Error(`could not store or find the file with hash ${file.hash}`);
}

/**
 * Inserts several records in ONE statement, each unless its content is already stored live in the
 * tenant, and returns the whole rows inserted (so nothing is read back); a record missing from the
 * result was a duplicate, for `insertUnlessDuplicate` to resolve.
 */
export async function insertAllUnlessDuplicate(em: EntityManager, files: NewFileRecord[]): Promise<Record<string, unknown>[]> {
  const tenant = tenantOf(em);
  const values = files.map((file) => valuesOf(file.usedByUuid !== undefined)).join(', ');
  return run(
    em,
    `insert into "files" ${COLUMNS} values ${values} ${UNLESS_DUPLICATE} returning *`,
    files.flatMap((file) => parametersOf(tenant, file)),
  );
}

/**
 * The records `uuids` as entities of `em`, and with `tenantBytes` the bytes the tenant's files take in
 * storage — live ones and deleted ones whose content is not purged yet (storage-quota.ts) — in one
 * statement: read after the records' inserts, it counts them and, past the tenant lock, every
 * concurrent upload of the tenant that committed first. `alongside` is a data-modifying
 * statement that runs in the same round trip (as a CTE; it cannot see the rows read).
 */
export async function readRecords(
  em: EntityManager,
  uuids: string[],
  { tenantBytes = false, alongside }: { tenantBytes?: boolean; alongside?: { sql: string; params: unknown[] } } = {},
): Promise<{ records: StoredFile[]; tenantBytes: number }> {
  const tenant = tenantOf(em);
  const total = tenantBytes ? '(select coalesce(sum("size"), 0) from "files" where "tenant_uuid" = ? and "purged_at" is null)::bigint' : '0::bigint';
  const rows = await run<Record<string, unknown> & { tenant_bytes: string | number }>(
    em,
    `${alongside ? `with "alongside" as (${alongside.sql}) ` : ''}select "f".*, ${total} as "tenant_bytes"
     from "files" as "f" where "f"."tenant_uuid" = ? and "f"."uuid" in (${uuids.map(() => '?').join(', ')})`,
    [...(alongside?.params ?? []), ...(tenantBytes ? [tenant] : []), tenant, ...uuids],
  );
  const records = rows.map(({ tenant_bytes: _, ...row }) => em.map(StoredFile, row));
  return { records, tenantBytes: Number(rows[0]?.tenant_bytes ?? 0) };
}

/**
 * Marks a live, unused PDF as held by `holderUuid` in one conditional UPDATE: of concurrent takers
 * exactly one gets the row. Taking a file its holder already holds is a no-op that succeeds.
 * Returns the row as it now is (undefined when not taken), so the taker needs no second read.
 */
export async function markUsed(em: EntityManager, fileUuid: string, holderUuid: string): Promise<Record<string, unknown> | undefined> {
  const rows = await run<Record<string, unknown>>(
    em,
    `update "files" set "used_at" = coalesce("used_at", clock_timestamp()), "used_by_uuid" = ?, "updated_at" = clock_timestamp()
     where "uuid" = ? and "tenant_uuid" = ? and "deleted_at" is null and "mime_type" = 'application/pdf'
       and ("used_at" is null or "used_by_uuid" = ?)
     returning *`,
    [holderUuid, fileUuid, tenantOf(em), holderUuid],
  );
  return rows[0];
}

/** Frees a file; with `holderUuid`, only when that holder has it. */
export async function markUnused(em: EntityManager, fileUuid: string, holderUuid?: string): Promise<boolean> {
  const rows = await run(
    em,
    `update "files" set "used_at" = null, "used_by_uuid" = null, "updated_at" = clock_timestamp()
     where "uuid" = ? and "tenant_uuid" = ? and "used_at" is not null ${holderUuid ? 'and "used_by_uuid" = ?' : ''}
     returning "uuid"`,
    holderUuid ? [fileUuid, tenantOf(em), holderUuid] : [fileUuid, tenantOf(em)],
  );
  return rows.length === 1;
}
