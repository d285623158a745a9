import type { EntityManager } from '@mikro-orm/postgresql';
import type { JsonRpcProvider } from 'ethers';
import type { AnchoringConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { certificateFactsOfRow } from '../certificates/certificate-events.js';
import { certificateEvent } from '../webhooks/webhook-events.js';
import { enqueueWebhookEvents } from '../webhooks/webhook.outbox.js';
import { broadcast, confirmation, connectChain, signAnchor } from './anchor-chain.js';
import type { AnchorIdentity } from './anchor-key.js';
import { anchorTransactions, certificatesAnchored } from './anchor-metrics.js';
import { type BatchMember, insertBatch, type OpenBatch, openBatch, pendingCertificates, recordConfirmed, recordResigned } from './anchor.repository.js';
import { blockcertsUrls, unsignedCredential } from './blockcerts-documents.js';
import { credentialHash } from './blockcerts-contexts.js';
import { merkleTree } from './merkle-tree.js';

/** What one anchoring run needs: a fresh EntityManager, the configuration, the key, the public origin. */
export interface AnchorContext {
  em: EntityManager;
  config: AnchoringConfig;
  identity: AnchorIdentity;
  /** The JSON-RPC URL actually used (the embedded chain's, when ANCHOR_RPC_URL=embedded). */
  rpcUrl: string;
  publicBaseUrl: string;
  logger: Logger;
}

/** How long one run follows its transaction before leaving the rest to the next run. */
const FOLLOW_MS = 30_000;
const FOLLOW_STEP_MS = 500;

export const txUrlOf = (template: string | null, txHash: string) => (template ? template.replaceAll('{hash}', txHash) : null);

/**
 * One anchoring run, for the caller holding the sender lock: follow the open batch to its
 * confirmations, or make, sign, store and send a new one from the pending certificates of every
 * tenant. Returns how many certificates it recorded as anchored. Chain failures throw an AnchorFault;
 * nothing is lost: the next run finds the stored batch and goes on from it.
 */
export async function anchorPendingBatch(ctx: AnchorContext): Promise<number> {
  const provider = connectChain(ctx.rpcUrl);
  try {
    const batch = (await openBatch(ctx.em.fork(), ctx.identity.address)) ?? (await createBatch(ctx, provider));
    if (!batch) return 0;
    const sent = await send(ctx, provider, batch);
    return await follow(ctx, provider, sent);
  } finally {
    provider.destroy();
  }
}

/**
 * Makes, signs and stores the next batch; null when nothing waits. The hashing runs outside any
 * transaction (the sender lock makes this the only batch maker); the batch, its members and its
 * signed transaction are then stored in one short transaction, before anything is sent.
 */
async function createBatch(ctx: AnchorContext, provider: JsonRpcProvider): Promise<OpenBatch | null> {
  // Verifiers accept only transactions after the key's `created` second.
  if (Date.now() < ctx.identity.createdAt.getTime() + 2000) return null;
  const urls = blockcertsUrls(ctx.publicBaseUrl);
  const pending = await pendingCertificates(ctx.em.fork(), ctx.config.maxBatch);
  if (pending.length === 0) return null;
  const credentials = pending.map((facts) => unsignedCredential(facts, urls));
  const hashes: string[] = [];
  for (const credential of credentials) hashes.push(await credentialHash(credential));
  const tree = merkleTree(hashes);
  const signed = await signAnchor(provider, ctx.identity.wallet, tree.root);
  anchorTransactions.inc();
  const members: BatchMember[] = pending.map((facts, index) => ({
    certificateUuid: facts.certificateUuid,
    credential: credentials[index],
    targetHash: hashes[index],
    path: tree.paths[index],
  }));
  const batch = await ctx.em
    .fork()
    .transactional((tx) => insertBatch(tx, { network: ctx.config.network, fromAddress: ctx.identity.address, merkleRoot: tree.root, signed }, members));
  ctx.logger.info({ batch: batch.uuid, size: members.length, txHash: batch.txHash }, 'anchoring batch signed');
  return batch;
}

/**
 * Broadcasts the batch's stored transaction (again, after a crash or a drop: same bytes, same hash).
 * It is signed again with the next nonce when it can never be mined as stored: its nonce went to
 * another transaction, or lies beyond the chain's next one (the chain was reset or replaced and no
 * longer knows the transactions before it). Only the new one can then be mined: still one
 * transaction per batch.
 */
async function send(ctx: AnchorContext, provider: JsonRpcProvider, batch: OpenBatch): Promise<OpenBatch> {
  if (await provider.getTransactionReceipt(batch.txHash)) return batch;
  if (batch.nonce > (await provider.getTransactionCount(ctx.identity.address, 'pending'))) {
    return resign(ctx, provider, batch, 'the chain does not know the transactions before it (reset or replaced)');
  }
  const outcome = await broadcast(provider, batch.rawTransaction);
  if (outcome !== 'nonce_taken') return batch;
  if (await provider.getTransactionReceipt(batch.txHash)) return batch;
  return resign(ctx, provider, batch, 'its nonce was used by another transaction');
}

async function resign(ctx: AnchorContext, provider: JsonRpcProvider, batch: OpenBatch, why: string): Promise<OpenBatch> {
  const signed = await signAnchor(provider, ctx.identity.wallet, batch.merkleRoot);
  anchorTransactions.inc();
  await recordResigned(ctx.em.fork(), batch.uuid, signed);
  ctx.logger.warn({ batch: batch.uuid, replaced: batch.txHash, txHash: signed.txHash }, `anchoring transaction can no longer be mined: ${why}; signed again`);
  const resigned = { ...batch, ...signed };
  await broadcast(provider, resigned.rawTransaction);
  return resigned;
}

async function follow(ctx: AnchorContext, provider: JsonRpcProvider, batch: OpenBatch): Promise<number> {
  const deadline = Date.now() + Math.min(FOLLOW_MS, ctx.config.intervalMs);
  for (;;) {
    const confirmed = await confirmation(provider, batch.txHash, ctx.config.confirmations);
    if (confirmed) return record(ctx, batch, confirmed);
    if (Date.now() >= deadline) return 0;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_STEP_MS));
  }
}

/** The confirmation, the certificates' fields and their `certificate.anchored` events: one transaction, recorded once. */
async function record(ctx: AnchorContext, batch: OpenBatch, block: { blockNumber: number; blockTime: Date }): Promise<number> {
  const txUrl = txUrlOf(ctx.config.txUrlTemplate, batch.txHash);
  const anchored = await ctx.em.fork().transactional(async (tx) => {
    const rows = await recordConfirmed(tx, batch, block, txUrl);
    for (const row of rows.filter((candidate) => !candidate.deleted_at)) {
      const event = certificateEvent('certificate.anchored', certificateFactsOfRow(row));
      event.data = {
        ...event.data,
        blockchain_tx_hash: batch.txHash,
        blockchain_tx_url: txUrl,
        block_number: block.blockNumber,
        anchored_at: block.blockTime.toISOString(),
      };
      enqueueWebhookEvents(tx, [event], String(row.tenant_uuid));
    }
    return rows.length;
  });
  certificatesAnchored.inc(anchored);
  if (anchored > 0) ctx.logger.info({ batch: batch.uuid, txHash: batch.txHash, block: block.blockNumber, count: anchored }, 'certificates anchored');
  return anchored;
}
