import type { EntityManager } from '@mikro-orm/postgresql';
import { SignedStatusList } from './status-list.entity.js';
import { formatSeconds } from '../../timestamps.js';

/**
 * Bitstring Status List (W3C): per institution one revocation bitstring, lists of LIST_SIZE entries
 * (the specification's minimum, 16 KiB, for herd privacy). Index 0 is the leftmost bit of a list's
 * first byte; PostgreSQL's set_bit counts from a byte's least significant bit, hence `7 - i % 8`.
 */
export const LIST_SIZE = 131_072;
const LIST_BYTES = LIST_SIZE / 8;

export interface StatusPosition {
  /** Position in the institution's whole bitstring, as stored with the credential. */
  index: number;
  listNumber: number;
  /** Position within its list, as `statusListIndex` says. */
  listIndex: number;
}

export const positionOf = (index: number): StatusPosition => ({ index, listNumber: Math.floor(index / LIST_SIZE) + 1, listIndex: index % LIST_SIZE });

// One statement: the row is made with its first list, or its counter moves on (growing the bitstring
// by a list when the next index would not fit).
const ALLOCATE = `insert into ob3_status_lists (institution_uuid, next_index, bits, version, updated_at)
  values (?, 1, decode(repeat('00', ${LIST_BYTES}), 'hex'), 0, now())
  on conflict (institution_uuid) do update set
    next_index = ob3_status_lists.next_index + 1,
    bits = case when length(ob3_status_lists.bits) * 8 > ob3_status_lists.next_index then ob3_status_lists.bits
      else ob3_status_lists.bits || decode(repeat('00', ${LIST_BYTES}), 'hex') end
  returning next_index - 1 as index`;

/**
 * Draws the next free index of the institution's list in the issuance transaction: concurrent
 * issuances of one institution queue on the row from here to their commit, so issuance calls this
 * last (only signing and the flush follow). A rollback returns the index; no two credentials share one.
 */
export async function allocateStatusIndex(tx: EntityManager, institutionUuid: string): Promise<StatusPosition> {
  const [row] = await tx.execute<{ index: number }[]>(ALLOCATE, [institutionUuid]);
  return positionOf(row!.index);
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
async function currentList(em: EntityManager, institutionUuid: string, listNumber: number) {
  const [row] = await em.execute<{ version: number; bits: Buffer | null }[]>(
    `select version, substring(bits from ? for ${LIST_BYTES}) as bits from ob3_status_lists where institution_uuid = ? and length(bits) >= ?`,
    [(listNumber - 1) * LIST_BYTES + 1, institutionUuid, listNumber * LIST_BYTES],
  );
  return row?.bits ? { version: row.version, bits: row.bits } : null;
}

/** The unsigned BitstringStatusListCredential of a list's bits. */
export async function statusListCredential(id: string, issuer: string, bits: Buffer): Promise<Record<string, unknown>> {
  // The reference library (and its bitstring codec) is loaded by the first list signed: a start signs none.
  const { BitstringStatusList, createCredential } = await import('@digitalbazaar/vc-bitstring-status-list');
  const credential = await createCredential({ id, list: new BitstringStatusList({ buffer: bits }), statusPurpose: 'revocation' });
  return { ...credential, issuer, validFrom: formatSeconds(new Date()) };
}

/**
 * The signed list credential: the stored one while the bits are unchanged, else signed now by
 * `sign` and stored for every process (the newest version wins a race). Null for a list that does not exist.
 */
export async function signedStatusList(
  em: EntityManager,
  institutionUuid: string,
  listNumber: number,
  sign: (bits: Buffer) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown> | null> {
  const list = await currentList(em, institutionUuid, listNumber);
  if (!list) return null;
  const stored = await em.findOne(SignedStatusList, { institutionUuid, listNumber }, { disableIdentityMap: true });
  if (stored && stored.version >= list.version) return stored.document;
  const document = await sign(list.bits);
  await em.execute(
    `insert into ob3_status_list_credentials (institution_uuid, list_number, version, document) values (?, ?, ?, ?)
     on conflict (institution_uuid, list_number) do update set version = excluded.version, document = excluded.document
     where ob3_status_list_credentials.version < excluded.version`,
    [institutionUuid, listNumber, list.version, JSON.stringify(document)],
  );
  return document;
}
