import type { EntityManager } from '@mikro-orm/postgresql';
import { currentStatusList, drawStatusIndex, LIST_SIZE, storeSignedStatusList } from './open-badges-v3.repository.js';
import { SignedStatusList } from './status-list.entity.js';
import { formatSeconds } from '../../timestamps.js';

export interface StatusPosition {
  /** Position in the institution's whole bitstring, as stored with the credential. */
  index: number;
  listNumber: number;
  /** Position within its list, as `statusListIndex` says. */
  listIndex: number;
}

export const positionOf = (index: number): StatusPosition => ({ index, listNumber: Math.floor(index / LIST_SIZE) + 1, listIndex: index % LIST_SIZE });

/**
 * Draws the next free index of the institution's list in the issuance transaction: concurrent
 * issuances of one institution queue on the row from here to their commit, so issuance calls this
 * last (only signing and the flush follow). A rollback returns the index; no two credentials share one.
 */
export async function allocateStatusIndex(tx: EntityManager, institutionUuid: string): Promise<StatusPosition> {
  return positionOf(await drawStatusIndex(tx, institutionUuid));
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
  const list = await currentStatusList(em, institutionUuid, listNumber);
  if (!list) return null;
  const stored = await em.findOne(SignedStatusList, { institutionUuid, listNumber }, { disableIdentityMap: true });
  if (stored && stored.version >= list.version) return stored.document;
  const document = await sign(list.bits);
  await storeSignedStatusList(em, institutionUuid, listNumber, list.version, document);
  return document;
}
