import type { EntityManager } from '@mikro-orm/postgresql';

/** A new issuer key, sealed, as its ob3_issuer_keys row is written. */
export interface NewIssuerKeyRow {
  uuid: string;
  tenant: string;
  institution: string;
  publicKeyMultibase: string;
  sealedSecretKey: Buffer;
}

// A concurrent first use waits here for the other's commit, then inserts nothing and reads the winner's key.
const INSERT_FIRST_KEY = `insert into ob3_issuer_keys (uuid, tenant_uuid, institution_uuid, public_key_multibase, sealed_secret_key, created_at, updated_at)
  values (?, ?, ?, ?, ?, now(), now()) on conflict (institution_uuid) where retired_at is null do nothing`;

/** Inserts the institution's first active key, in the caller's transaction; nothing when it has one already. */
export async function insertFirstIssuerKey(em: EntityManager, row: NewIssuerKeyRow): Promise<void> {
  await em.execute(INSERT_FIRST_KEY, [row.uuid, row.tenant, row.institution, row.publicKeyMultibase, row.sealedSecretKey]);
}

/**
 * Bitstring Status List (W3C): per institution one revocation bitstring, lists of LIST_SIZE entries
 * (the specification's minimum, 16 KiB, for herd privacy). Index 0 is the leftmost bit of a list's
 * first byte; PostgreSQL's set_bit counts from a byte's least significant bit, hence `7 - i % 8`.
 */
export const LIST_SIZE = 131_072;
const LIST_BYTES = LIST_SIZE / 8;

// One statement: the row is made with its first list, or its counter moves on (growing the bitstring
// by a list when the next index would not fit).
const ALLOCATE = `insert into ob3_status_lists (institution_uuid, next_index, bits, version, updated_at)
  values (?, 1, decode(repeat('00', ${LIST_BYTES}), 'hex'), 0, now())
  on conflict (institution_uuid) do update set
    next_index = ob3_status_lists.next_index + 1,
    bits = case when length(ob3_status_lists.bits) * 8 > ob3_status_lists.next_index then ob3_status_lists.bits
      else ob3_status_lists.bits || decode(repeat('00', ${LIST_BYTES}), 'hex') end
  returning next_index - 1 as index`;

/** Draws the next free index of the institution's whole bitstring (the row stays locked until the transaction ends). */
export async function drawStatusIndex(tx: EntityManager, institutionUuid: string): Promise<number> {
  const [row] = await tx.execute<{ index: number }[]>(ALLOCATE, [institutionUuid]);
  return row!.index;
}

const REVOKE = `update ob3_status_lists s set bits = set_bit(s.bits, (c.status_index / 8) * 8 + 7 - c.status_index % 8, 1), version = s.version + 1, updated_at = now()
  from ob3_credentials c where c.certificate_uuid = ? and s.institution_uuid = c.institution_uuid`;

/**
 * Sets the revocation bit of a certificate's credential, in the caller's transaction (a revocation,
 * or a deletion: a withdrawn credential is revoked for every verifier); nothing without a credential.
 */
export async function revokeStatus(tx: EntityManager, certificateUuid: string): Promise<void> {
  await tx.execute(REVOKE, [certificateUuid]);
}

const REVOKE_ALL = `update ob3_status_lists set bits = decode(repeat('ff', length(bits)), 'hex'), version = version + 1, updated_at = now()
  where institution_uuid = ?`;

/**
 * Sets every bit of a deleted institution's lists, in the deletion's transaction: each of its
 * credentials reads as revoked at once. Bits never drawn are set too; a deleted institution issues nothing again.
 */
export async function revokeAllStatuses(tx: EntityManager, institutionUuid: string): Promise<void> {
  await tx.execute(REVOKE_ALL, [institutionUuid]);
}

/** One list of the institution as it is now, or null when the list does not exist. */
export async function currentStatusList(em: EntityManager, institutionUuid: string, listNumber: number): Promise<{ version: number; bits: Buffer } | null> {
  const [row] = await em.execute<{ version: number; bits: Buffer | null }[]>(
    `select version, substring(bits from ? for ${LIST_BYTES}) as bits from ob3_status_lists where institution_uuid = ? and length(bits) >= ?`,
    [(listNumber - 1) * LIST_BYTES + 1, institutionUuid, listNumber * LIST_BYTES],
  );
  return row?.bits ? { version: row.version, bits: row.bits } : null;
}

/** Stores the signed credential of a list's `version`, unless a newer version is stored already (the newest wins a race). */
export async function storeSignedStatusList(
  em: EntityManager,
  institutionUuid: string,
  listNumber: number,
  version: number,
  document: Record<string, unknown>,
): Promise<void> {
  await em.execute(
    `insert into ob3_status_list_credentials (institution_uuid, list_number, version, document) values (?, ?, ?, ?)
     on conflict (institution_uuid, list_number) do update set version = excluded.version, document = excluded.document
     where ob3_status_list_credentials.version < excluded.version`,
    [institutionUuid, listNumber, version, JSON.stringify(document)],
  );
}

/** The certificate's stored ClrCredential (signed or not yet), or null. */
export async function storedClrDocument(em: EntityManager, certificateUuid: string): Promise<Record<string, unknown> | null> {
  const [row] = await em.execute<{ clr_document: Record<string, unknown> | null }[]>('select clr_document from ob3_credentials where certificate_uuid = ?', [
    certificateUuid,
  ]);
  return row?.clr_document ?? null;
}

/** Stores the signed ClrCredential unless a signed one is stored already (the first signer wins). */
export async function storeSignedClr(em: EntityManager, certificateUuid: string, signed: Record<string, unknown>): Promise<void> {
  await em.execute(`update ob3_credentials set clr_document = ? where certificate_uuid = ? and (clr_document is null or clr_document->'proof' is null)`, [
    JSON.stringify(signed),
    certificateUuid,
  ]);
}
