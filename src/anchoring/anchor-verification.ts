import { createHash } from 'node:crypto';
import type { PublicContext } from '../context/request-context.js';
import { credentialHash } from './blockcerts-contexts.js';
import { digestSri } from './blockcerts-documents.js';
import { anchorAddresses } from './anchor.repository.js';
import { anchorRecords, type AnchorRecord } from './blockcerts.service.js';
import { rootFromPath } from './merkle-tree.js';

/**
 * Verification of a certificate's anchoring by this service (docs/anchoring.md, "Verification"):
 * what the public pages show from the stored record, and the `anchor` check the verify endpoints
 * run against the chain itself.
 */

/** Where a certificate is anchored, as the stored record says. */
export interface AnchorSummary {
  network: string;
  txHash: string;
  txUrl: string | null;
  blockNumber: number;
  anchoredAt: Date;
}

/** The record, 'pending' while anchoring is on and the certificate waits for its batch, null when anchoring is off. */
export type AnchorState = AnchorSummary | 'pending' | null;

export interface AnchorCheck {
  /** anchored: the chain confirms it; failed: the chain or the record contradicts it; pending: not anchored yet; unavailable: the chain could not be read. */
  status: 'anchored' | 'failed' | 'pending' | 'unavailable';
  /** true: anchored; false: failed; null: not decided (pending, unavailable). */
  passed: boolean | null;
  message: string | null;
  anchor: AnchorSummary | null;
}

/** A chain read in a person's request: bounded. */
const CHAIN_TIMEOUT_MS = 5000;
/** Confirmed transactions never change: their reads are kept (bounded), so repeated checks do not call the chain again. */
const MAX_CACHED_TRANSACTIONS = 1000;
type ChainTransaction = NonNullable<Awaited<ReturnType<AnchorChain['anchoringTransaction']>>>;
/** The chain client (ethers): loaded by the first check that reads the chain, which only a service with anchoring configured does. */
type AnchorChain = typeof import('./anchor-chain.js');
const transactions = new Map<string, ChainTransaction>();
/**
 * Canonicalisation costs milliseconds of the event loop, and anyone may ask for a check: a stored
 * credential's hash is kept (bounded), keyed by its exact JSON, so a changed record is hashed anew.
 */
const MAX_CACHED_HASHES = 1000;
const hashes = new Map<string, string>();

async function storedCredentialHash(credential: Record<string, unknown>): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify(credential)).digest('base64');
  const cached = hashes.get(key);
  if (cached) return cached;
  const hash = await credentialHash(credential);
  if (hashes.size >= MAX_CACHED_HASHES) hashes.delete(hashes.keys().next().value!);
  hashes.set(key, hash);
  return hash;
}

const summaryOf = (record: AnchorRecord): AnchorSummary => ({
  network: record.network,
  txHash: record.txHash,
  txUrl: record.txUrl,
  blockNumber: record.blockNumber,
  anchoredAt: record.anchoredAt,
});

/**
 * What the verification page and facts show: from the stored record, no chain read. `awaitsAnchoring`:
 * the certificate is one a batch takes (issued, not revoked); a revoked one never anchored says nothing.
 */
export async function anchorState(ctx: PublicContext, certificateUuid: string, awaitsAnchoring: boolean): Promise<AnchorState> {
  const record = (await anchorRecords(ctx, [certificateUuid])).get(certificateUuid);
  if (record) return summaryOf(record);
  return ctx.anchoring && awaitsAnchoring ? 'pending' : null;
}

async function readTransaction(chain: AnchorChain, rpcUrl: string, txHash: string): Promise<ChainTransaction | null> {
  const key = `${rpcUrl} ${txHash}`;
  const cached = transactions.get(key);
  if (cached) return cached;
  const provider = chain.connectChain(rpcUrl, CHAIN_TIMEOUT_MS);
  try {
    const read = await chain.anchoringTransaction(provider, txHash);
    if (read) {
      if (transactions.size >= MAX_CACHED_TRANSACTIONS) transactions.delete(transactions.keys().next().value!);
      transactions.set(key, read);
    }
    return read;
  } finally {
    provider.destroy();
  }
}

/** The anchored credential lists this SHA-256 (hex) among its signed documents. */
function coversDocument(credential: Record<string, unknown>, sha256: string): boolean {
  const subject = credential.credentialSubject as { signedDocuments?: { digestSRI?: string }[] } | undefined;
  return (subject?.signedDocuments ?? []).some((document) => document.digestSRI === digestSri(sha256));
}

const result = (status: AnchorCheck['status'], message: string | null, anchor: AnchorSummary | null): AnchorCheck => ({
  status,
  passed: status === 'anchored' ? true : status === 'failed' ? false : null,
  message,
  anchor,
});

/**
 * The `anchor` check of a certificate (and, given `documentSha256`, of one of its PDFs): the stored
 * credential hashed again (canonical N-Quads), the root recomputed from that hash and the stored
 * path, the transaction read through ANCHOR_RPC_URL, its data equal to the root and its sender one
 * of the addresses the issuer profiles list. Null when the certificate was never anchored and will not
 * be (anchoring off, or revoked before its batch: `awaitsAnchoring` false).
 */
export async function checkAnchor(
  ctx: PublicContext,
  certificateUuid: string,
  { documentSha256, awaitsAnchoring }: { documentSha256?: string; awaitsAnchoring: boolean },
): Promise<AnchorCheck | null> {
  const record = (await anchorRecords(ctx, [certificateUuid])).get(certificateUuid);
  if (!record) {
    return ctx.anchoring && awaitsAnchoring ? result('pending', 'Not anchored yet: the certificate waits for the next anchoring batch.', null) : null;
  }
  const anchor = summaryOf(record);
  if (documentSha256 && !coversDocument(record.credential, documentSha256)) {
    return result('failed', "The anchored credential does not list this document's SHA-256.", anchor);
  }
  if (!ctx.anchoring) return result('unavailable', 'Anchoring is not configured here (ANCHOR_RPC_URL): the transaction cannot be read.', anchor);
  const root = rootFromPath(await storedCredentialHash(record.credential), record.path);
  const chain: AnchorChain = await import('./anchor-chain.js');
  let transaction: ChainTransaction | null;
  try {
    transaction = await readTransaction(chain, ctx.anchoring.rpcUrl, record.txHash);
  } catch (error) {
    ctx.logger.warn({ err: chain.faultOf(error).message, txHash: record.txHash }, 'anchor check: the chain could not be read');
    return result('unavailable', 'The chain could not be read; try again later.', anchor);
  }
  if (!transaction) return result('failed', 'The anchoring transaction is not in a block of this chain.', anchor);
  if (transaction.data !== root) return result('failed', 'The transaction does not carry the Merkle root recomputed from the credential and its path.', anchor);
  const addresses = await anchorAddresses(ctx.em);
  if (!addresses.includes(transaction.from)) return result('failed', "The transaction was not sent from an address of the issuer's profile.", anchor);
  return result('anchored', null, anchor);
}
