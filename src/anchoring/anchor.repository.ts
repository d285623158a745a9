import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from '../db/uuid.js';
import type { AnchoredCredentialFacts, SignedDocumentFacts } from './blockcerts-documents.js';
import type { MerklePathStep } from './merkle-tree.js';
import type { SignedAnchor } from './anchor-chain.js';

/**
 * The SQL of anchoring, across tenants on purpose: one batch carries every tenant's certificates, and
 * the public Blockcerts documents read theirs by uuid (blockcerts.service.ts).
 */

export interface OpenBatch {
  uuid: string;
  merkleRoot: string;
  txHash: string;
  rawTransaction: string;
  nonce: number;
}

const OPEN_BATCH = `select uuid, merkle_root, tx_hash, raw_transaction, nonce from anchor_batches
  where from_address = ? and confirmed_at is null order by created_at limit 1`;

/** The batch of this address sent (or signed) but not yet recorded as confirmed, if any. */
export async function openBatch(em: EntityManager, address: string): Promise<OpenBatch | null> {
  const [row] = await em.execute<Record<string, string>[]>(OPEN_BATCH, [address]);
  return row ? { uuid: row.uuid, merkleRoot: row.merkle_root, txHash: row.tx_hash, rawTransaction: row.raw_transaction, nonce: Number(row.nonce) } : null;
}

/** Issued, live, not yet in a batch: a certificate revoked or deleted before its batch is made is never anchored. */
const PENDING = `select c.uuid, c.issued_at, c.expires_at, coalesce(nullif(trim(c.recipient_social_name), ''), c.recipient_name) as recipient_name,
    c.institution_uuid, i.name as institution_name, co.name as course_name
  from certificates c
  join institutions i on i.uuid = c.institution_uuid
  join courses co on co.uuid = c.course_uuid
  where c.status = 'issued' and c.blockchain_tx_hash is null and c.deleted_at is null and i.deleted_at is null
    and not exists (select 1 from certificate_anchors a where a.certificate_uuid = c.uuid)
  order by c.issued_at, c.uuid
  limit ?`;

const DOCUMENTS = `select d.certificate_uuid, d.type, f.uuid as file_uuid, f.hash from certificate_documents d
  join files f on f.uuid = d.file_uuid where d.certificate_uuid = any(?::uuid[]) order by d.certificate_uuid, d.type`;

export async function pendingCertificates(em: EntityManager, limit: number): Promise<AnchoredCredentialFacts[]> {
  const rows = await em.execute<Record<string, unknown>[]>(PENDING, [limit]);
  if (rows.length === 0) return [];
  const documents = new Map<string, SignedDocumentFacts[]>();
  for (const row of await em.execute<Record<string, string>[]>(DOCUMENTS, [`{${rows.map((row) => row.uuid).join(',')}}`])) {
    const list = documents.get(row.certificate_uuid) ?? [];
    list.push({ fileUuid: row.file_uuid, type: row.type, sha256: row.hash });
    documents.set(row.certificate_uuid, list);
  }
  return rows.map((row) => ({
    certificateUuid: String(row.uuid),
    issuedAt: new Date(row.issued_at as string),
    expiresAt: row.expires_at ? new Date(row.expires_at as string) : null,
    recipientName: String(row.recipient_name ?? ''),
    courseName: String(row.course_name),
    institution: { uuid: String(row.institution_uuid), name: String(row.institution_name) },
    documents: documents.get(String(row.uuid)) ?? [],
  }));
}

export interface BatchMember {
  certificateUuid: string;
  credential: Record<string, unknown>;
  targetHash: string;
  path: MerklePathStep[];
}

const INSERT_BATCH = `insert into anchor_batches (uuid, network, from_address, merkle_root, size, nonce, tx_hash, raw_transaction, created_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, now())`;
const INSERT_MEMBERS = `insert into certificate_anchors (certificate_uuid, batch_uuid, target_hash, path, credential)
  select m.certificate_uuid, ?, m.target_hash, m.path, m.credential
  from jsonb_to_recordset(?::jsonb) as m(certificate_uuid uuid, target_hash text, path jsonb, credential jsonb)`;

/** Stores a signed batch and its members in one transaction, before anything is sent. */
export async function insertBatch(
  em: EntityManager,
  batch: { network: string; fromAddress: string; merkleRoot: string; signed: SignedAnchor },
  members: BatchMember[],
): Promise<OpenBatch> {
  const uuid = uuidv7();
  const { signed } = batch;
  await em.execute(INSERT_BATCH, [
    uuid,
    batch.network,
    batch.fromAddress,
    batch.merkleRoot,
    members.length,
    signed.nonce,
    signed.txHash,
    signed.rawTransaction,
  ]);
  const rows = members.map((member) => ({
    certificate_uuid: member.certificateUuid,
    target_hash: member.targetHash,
    path: member.path,
    credential: member.credential,
  }));
  await em.execute(INSERT_MEMBERS, [uuid, JSON.stringify(rows)]);
  return { uuid, merkleRoot: batch.merkleRoot, txHash: signed.txHash, rawTransaction: signed.rawTransaction, nonce: signed.nonce };
}

const RESIGN = `update anchor_batches set tx_hash = ?, raw_transaction = ?, nonce = ?, signings = signings + 1 where uuid = ? and confirmed_at is null`;

/** The batch's transaction was never mined and its nonce went to another one: it carries the new signature from now on. */
export async function recordResigned(em: EntityManager, batchUuid: string, signed: SignedAnchor): Promise<void> {
  await em.execute(RESIGN, [signed.txHash, signed.rawTransaction, signed.nonce, batchUuid]);
}

const CONFIRM = `update anchor_batches set block_number = ?, anchored_at = ?, confirmed_at = now() where uuid = ? and confirmed_at is null returning uuid`;
const MARK_CERTIFICATES = `update certificates c set blockchain_tx_hash = ?, blockchain_tx_url = ?
  from certificate_anchors a where a.batch_uuid = ? and a.certificate_uuid = c.uuid
  returning c.uuid, c.tenant_uuid, c.deleted_at, c.status, c.issued_at, c.expires_at, c.revoked_at, c.revocation_reason, c.public_verification_url, c.institution_uuid, c.course_uuid, c.student_uuid`;

/** Records the confirmation once (a second call finds it recorded and changes nothing); the certificates it anchored. */
export async function recordConfirmed(
  em: EntityManager,
  batch: OpenBatch,
  block: { blockNumber: number; blockTime: Date },
  txUrl: string | null,
): Promise<Record<string, unknown>[]> {
  const confirmed = await em.execute<unknown[]>(CONFIRM, [block.blockNumber, block.blockTime, batch.uuid]);
  if (confirmed.length === 0) return [];
  return em.execute<Record<string, unknown>[]>(MARK_CERTIFICATES, [batch.txHash, txUrl, batch.uuid]);
}

type AnchorKeyRow = { address: string; sealed_private_key: Buffer | null; created_at: Date };

const REGISTER_KEY = `insert into anchor_keys (address, sealed_private_key, created_at) values (?, ?, ?) on conflict (address) do nothing`;
const READ_KEY = `select address, sealed_private_key, created_at from anchor_keys where address = ?`;
const FIRST_SEALED_KEY = `select address, sealed_private_key, created_at from anchor_keys where sealed_private_key is not null order by created_at limit 1`;

/** Registers an address once: a later registration of the same address keeps the first row. */
export async function registerAnchorKey(em: EntityManager, address: string, sealedPrivateKey: Buffer | null, createdAt: Date): Promise<void> {
  await em.execute(REGISTER_KEY, [address, sealedPrivateKey, createdAt]);
}

export async function anchorKey(em: EntityManager, address: string): Promise<AnchorKeyRow | undefined> {
  const [row] = await em.execute<AnchorKeyRow[]>(READ_KEY, [address]);
  return row;
}

/** The first key this service generated and sealed, if any. */
export async function firstSealedAnchorKey(em: EntityManager): Promise<AnchorKeyRow | undefined> {
  const [row] = await em.execute<AnchorKeyRow[]>(FIRST_SEALED_KEY);
  return row;
}

const ANCHOR_ADDRESSES = `select address from anchor_keys`;

export async function anchorAddresses(em: EntityManager): Promise<string[]> {
  return (await em.execute<{ address: string }[]>(ANCHOR_ADDRESSES)).map((row) => row.address);
}

const KEYS = `select address, created_at from anchor_keys order by created_at`;

/** Every anchoring address this service used, oldest first. */
export async function anchorKeysByAge(em: EntityManager): Promise<{ address: string; created_at: Date }[]> {
  return em.execute<{ address: string; created_at: Date }[]>(KEYS);
}

const ANCHOR = `select c.uuid, c.status, c.expires_at, c.deleted_at, c.revocation_reason, c.institution_uuid, c.blockchain_tx_url, i.deleted_at as institution_deleted_at,
    a.credential, a.target_hash, a.path, b.network, b.tx_hash, b.merkle_root, b.from_address, b.block_number, b.anchored_at
  from certificate_anchors a
  join anchor_batches b on b.uuid = a.batch_uuid and b.confirmed_at is not null
  join certificates c on c.uuid = a.certificate_uuid
  join institutions i on i.uuid = c.institution_uuid
  where a.certificate_uuid = any(?::uuid[])`;

/** The confirmed anchorings of these certificates, with the certificate's and its institution's standing. */
export async function confirmedAnchors(em: EntityManager, certificateUuids: string[]): Promise<Record<string, unknown>[]> {
  return em.execute<Record<string, unknown>[]>(ANCHOR, [`{${certificateUuids.join(',')}}`]);
}

const INSTITUTION = `select uuid, name, website, email, deleted_at from institutions where uuid = ?`;

/** An institution as its issuer profile shows it, deleted or not. */
export async function issuerInstitution(em: EntityManager, institutionUuid: string): Promise<Record<string, unknown> | undefined> {
  const [institution] = await em.execute<Record<string, unknown>[]>(INSTITUTION, [institutionUuid]);
  return institution;
}

const NO_LONGER_VALID = `select c.uuid from certificate_anchors a
  join anchor_batches b on b.uuid = a.batch_uuid and b.confirmed_at is not null
  join certificates c on c.uuid = a.certificate_uuid
  join institutions i on i.uuid = c.institution_uuid
  where c.institution_uuid = ? and (c.status = 'revoked' or c.deleted_at is not null or i.deleted_at is not null)
  order by c.uuid`;

/** The institution's anchored certificates revoked or withdrawn (deleted, or the institution deleted), by uuid. */
export async function noLongerValidAnchored(em: EntityManager, institutionUuid: string): Promise<string[]> {
  return (await em.execute<{ uuid: string }[]>(NO_LONGER_VALID, [institutionUuid])).map((row) => row.uuid);
}
