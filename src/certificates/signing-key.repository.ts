import type { EntityManager } from '@mikro-orm/postgresql';

/** A column of sealed keys, each sealed to `<table>/<row id>`. */
export interface SealedKeyColumn {
  table: string;
  column: string;
  id: string;
}

/** Every sealed key of the column (deleted rows too). */
export async function sealedKeysIn(em: EntityManager, { table, column }: SealedKeyColumn): Promise<{ sealed: Buffer }[]> {
  return em.getConnection().execute<{ sealed: Buffer }[]>(`select ${column} as sealed from ${table} where ${column} is not null`);
}

/** Every sealed key of the column with its row id, locked until the caller's transaction ends, in id order. */
export async function lockSealedKeys(tx: EntityManager, { table, column, id }: SealedKeyColumn): Promise<{ id: string; sealed: Buffer }[]> {
  return tx.execute<{ id: string; sealed: Buffer }[]>(
    `select ${id} as id, ${column} as sealed from ${table} where ${column} is not null order by ${id} for update`,
  );
}

/** Puts a row's key back sealed anew. */
export async function replaceSealedKey(tx: EntityManager, { table, column, id }: SealedKeyColumn, rowId: string, sealed: Buffer): Promise<void> {
  await tx.execute(`update ${table} set ${column} = ? where ${id} = ?`, [sealed, rowId]);
}

// Migration20261122230000_keys_at_rest moved identities stored before encryption at rest (PKCS#12 with
// its passphrase beside it) into this table: SQL cannot seal them, since the key-encryption key never
// reaches the database. The service seals them at startup and puts them back under the same uuid.
const CLAIM = `delete from signing_identities_unsealed returning uuid, tenant_uuid, institution_uuid, created_at,
  updated_at, deleted_at, p12, passphrase, fingerprint_sha256, not_after, origin`;
const RESTORE = `insert into signing_identities (uuid, tenant_uuid, institution_uuid, created_at, updated_at, deleted_at,
  sealed_private_key, certificates, fingerprint_sha256, not_after, origin) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A signing identity stored before encryption at rest. */
export interface LegacyIdentityRow {
  uuid: string;
  tenant_uuid: string;
  institution_uuid: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  p12: Buffer;
  passphrase: string;
  fingerprint_sha256: string;
  not_after: Date;
  origin: string;
}

/** Takes every legacy identity out of its table, in the caller's transaction. */
export async function claimLegacyIdentities(tx: EntityManager): Promise<LegacyIdentityRow[]> {
  return tx.execute<LegacyIdentityRow[]>(CLAIM);
}

/** Puts a legacy identity back into signing_identities under its uuid, its key sealed. */
export async function restoreSealedIdentity(
  tx: EntityManager,
  row: LegacyIdentityRow,
  { sealedPrivateKey, certificates }: { sealedPrivateKey: Buffer; certificates: Buffer },
): Promise<void> {
  await tx.execute(RESTORE, [
    row.uuid,
    row.tenant_uuid,
    row.institution_uuid,
    row.created_at,
    row.updated_at,
    row.deleted_at,
    sealedPrivateKey,
    certificates,
    row.fingerprint_sha256,
    row.not_after,
    row.origin,
  ]);
}
