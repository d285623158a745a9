import type { PublicContext } from '../context/request-context.js';
import { isUuid } from '../db/uuid.js';
import { type PublicStanding, publicStanding } from '../certificates/public-standing.js';
import type { CertificateStatus } from '../certificates/certificate.entity.js';
import { blockcertsUrls, type BlockcertsDocument, issuerProfile, revocationList } from './blockcerts-documents.js';
import type { AnchorNetwork } from './networks.js';
import type { MerklePathStep } from './merkle-tree.js';
import { formatSeconds } from '../timestamps.js';
import { anchorKeysByAge, confirmedAnchors, issuerInstitution, noLongerValidAnchored } from './anchor.repository.js';

/**
 * The public Blockcerts documents, read across tenants by uuid (deleted rows included on purpose:
 * public-standing.ts decides what a withdrawn certificate or institution answers).
 */

export type PublicAnswer<T> = T | 'withdrawn' | null;

/** A certificate's anchoring, as the public documents, the API and verification read it. */
export interface AnchorRecord {
  certificateUuid: string;
  institutionUuid: string;
  standing: PublicStanding;
  revocationReason: string | null;
  credential: Record<string, unknown>;
  targetHash: string;
  path: MerklePathStep[];
  network: AnchorNetwork;
  txHash: string;
  /** The certificate's `blockchain_tx_url` (ANCHOR_TX_URL_TEMPLATE when it was anchored). */
  txUrl: string | null;
  merkleRoot: string;
  fromAddress: string;
  blockNumber: number;
  anchoredAt: Date;
}

function anchorRecord(row: Record<string, unknown>): AnchorRecord {
  const standing = publicStanding(
    { status: row.status as CertificateStatus, expiresAt: row.expires_at as Date | null, deletedAt: row.deleted_at as Date | null },
    { deletedAt: row.institution_deleted_at as Date | null },
  );
  return {
    certificateUuid: String(row.uuid),
    institutionUuid: String(row.institution_uuid),
    standing,
    revocationReason: (row.revocation_reason as string | null) ?? null,
    credential: row.credential as Record<string, unknown>,
    targetHash: String(row.target_hash),
    path: row.path as MerklePathStep[],
    network: row.network as AnchorNetwork,
    txHash: String(row.tx_hash),
    txUrl: (row.blockchain_tx_url as string | null) ?? null,
    merkleRoot: String(row.merkle_root),
    fromAddress: String(row.from_address),
    blockNumber: Number(row.block_number),
    anchoredAt: new Date(row.anchored_at as string),
  };
}

/** The confirmed anchorings of these certificates (any tenant: callers pass uuids they may show), by certificate uuid. */
export async function anchorRecords(ctx: Pick<PublicContext, 'em'>, certificateUuids: string[]): Promise<Map<string, AnchorRecord>> {
  const uuids = certificateUuids.filter(isUuid);
  if (uuids.length === 0) return new Map();
  const rows = await confirmedAnchors(ctx.em, uuids);
  return new Map(rows.map((row) => [String(row.uuid), anchorRecord(row)]));
}

/** The stored credential with its proof, as anchored (the MerkleProof2019 encoder is loaded with the first one shown). */
export async function anchoredCredential(record: AnchorRecord, publicBaseUrl: string): Promise<BlockcertsDocument> {
  const { signedCredential } = await import('./blockcerts-proof.js');
  return signedCredential(record.credential, { ...record, profileUrl: blockcertsUrls(publicBaseUrl).profile(record.institutionUuid) });
}

/** GET /blockcerts/{certificate_uuid}: the anchored credential; withdrawn → 410; unknown, a draft or not anchored yet → 404. */
export async function publicCredential(ctx: PublicContext, certificateUuid: string): Promise<PublicAnswer<BlockcertsDocument>> {
  const record = (await anchorRecords(ctx, [certificateUuid])).get(certificateUuid);
  if (!record || record.standing === 'absent') return null;
  if (record.standing === 'withdrawn') return 'withdrawn';
  return anchoredCredential(record, ctx.publicBaseUrl);
}

/** GET /blockcerts/issuers/{institution_uuid}: every anchoring address this service used, each with its `created`. */
export async function publicIssuerProfile(ctx: PublicContext, institutionUuid: string): Promise<PublicAnswer<BlockcertsDocument>> {
  if (!isUuid(institutionUuid)) return null;
  const institution = await issuerInstitution(ctx.em, institutionUuid);
  if (!institution) return null;
  if (institution.deleted_at) return 'withdrawn';
  const keys = await anchorKeysByAge(ctx.em);
  if (keys.length === 0) return null;
  const urls = blockcertsUrls(ctx.publicBaseUrl);
  const profile = issuerProfile(
    {
      uuid: institutionUuid,
      name: String(institution.name),
      website: (institution.website as string | null) ?? null,
      email: (institution.email as string | null) ?? null,
      key: { address: keys[0].address, createdAt: new Date(keys[0].created_at) },
    },
    urls,
  );
  return { ...profile, publicKey: keys.map((key) => ({ ...(profile.publicKey as object[])[0], ...keyEntry(key) })) };
}

const keyEntry = (key: { address: string; created_at: Date }) => ({
  id: `ecdsa-koblitz-pubkey:${key.address}`,
  created: formatSeconds(new Date(key.created_at)),
});

export const WITHDRAWN_REASON = 'Withdrawn by the issuer.';

/**
 * GET /blockcerts/issuers/{uuid}/revocations: the anchored certificates no longer valid — revoked
 * (with their reason) or withdrawn (deleted, or their institution deleted). `assertionId` narrows
 * it to one credential, as Blockcerts verifiers ask.
 */
export async function publicRevocationList(ctx: PublicContext, institutionUuid: string, assertionId?: string): Promise<BlockcertsDocument | null> {
  if (!isUuid(institutionUuid)) return null;
  const institution = await issuerInstitution(ctx.em, institutionUuid);
  if (!institution) return null;
  const urls = blockcertsUrls(ctx.publicBaseUrl);
  const uuids = await noLongerValidAnchored(ctx.em, institutionUuid);
  const wanted = assertionId ? uuids.filter((uuid) => urls.credential(uuid) === assertionId) : uuids;
  const records = await anchorRecords(ctx, wanted);
  const revoked = wanted.map((uuid) => {
    const record = records.get(uuid);
    return { certificateUuid: uuid, reason: record?.standing === 'revoked' ? (record.revocationReason ?? 'Revoked by the issuer.') : WITHDRAWN_REASON };
  });
  return revocationList(institutionUuid, revoked, urls);
}
