// The hand-written statements on `files`. Those that must be single conditional SQL statements to be
// race-free (dedup insert, take, release) name the tenant explicitly: raw SQL bypasses the ORM's filters.
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

/** A live template of the tenant that draws one of the files, and which file (file-holders.ts says what counts as drawing). */
export async function templateDrawingAnyOf(
  em: EntityManager,
  fileUuids: string[],
  tenantUuid: string,
): Promise<{ uuid: string; file_uuid: string } | undefined> {
  const [row] = await em.execute<Array<{ uuid: string; file_uuid: string }>>(
    `select t.uuid, f.uuid as file_uuid from certificate_templates t
       join unnest(array[?]::uuid[]) as f(uuid)
         on lower(t.path) = 'files/' || f.uuid::text
         or f.uuid::text in (select lower(jsonb_path_query(t.design_config, 'strict $.**.file_uuid') #>> '{}'))
         or 'files/' || f.uuid::text in (select lower(jsonb_path_query(t.design_config, 'strict $.**.font') #>> '{}'))
     where t.tenant_uuid = ? and t.deleted_at is null limit 1`,
    [fileUuids, tenantUuid],
  );
  return row;
}

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

/** Marks up to `limit` deleted files purged, in the caller's transaction, and returns where their content is. */
export async function claimPurgeableFiles(
  tx: EntityManager,
  graceSeconds: number,
  limit: number,
): Promise<{ uuid: string; tenant_uuid: string; storage: string }[]> {
  return run(tx, CLAIM, [graceSeconds, limit]);
}

/** A file whose content is still on another driver: live, or deleted and not purged yet. */
export interface FileToMove {
  uuid: string;
  tenant_uuid: string;
  storage: string;
  size: number;
  hash: string;
}

const PENDING = `select "uuid", "tenant_uuid", "storage", "size", "hash" from "files"
  where "storage" <> ? and "purged_at" is null and "uuid" > ? order by "uuid" limit ?`;

/** The record's content may be switched only while the record still names the driver it was copied from. */
const SWITCH = `update "files" set "storage" = ? where "uuid" = ? and "storage" = ? and "purged_at" is null`;

/** How many files (deleted ones not purged included) have their content on another driver than `storage`. */
export async function countFilesToMove(em: EntityManager, storage: string): Promise<number> {
  const [{ total }] = await em
    .getConnection()
    .execute<[{ total: number }]>('select count(*)::int as "total" from "files" where "storage" <> ? and "purged_at" is null', [storage]);
  return total;
}

/** The next `limit` files after uuid `after` whose content is on another driver than `storage`, in uuid order. */
export async function filesToMove(em: EntityManager, storage: string, after: string, limit: number): Promise<FileToMove[]> {
  return em.getConnection().execute<FileToMove[]>(PENDING, [storage, after, limit]);
}

/** Points the record at `target`, in the caller's transaction, unless it no longer names `source` (or was purged); true when it did. */
export async function switchStorage(tx: EntityManager, fileUuid: string, source: string, target: string): Promise<boolean> {
  const result = await tx.getConnection().execute(SWITCH, [target, fileUuid, source], 'run', tx.getTransactionContext());
  return (result as { affectedRows?: number }).affectedRows === 1;
}
