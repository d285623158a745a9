import { formatTimestamp } from '../timestamps.js';
import type { JsonSchema } from '../http/route-contract.js';
import type { AnchorCheck, AnchorState, AnchorSummary } from './anchor-verification.js';

/** The REST shapes of a certificate's anchoring, shared by the verification and credential verify endpoints. */

const summaryJson = (anchor: AnchorSummary) => ({
  network: anchor.network,
  tx_hash: anchor.txHash,
  tx_url: anchor.txUrl,
  block_number: anchor.blockNumber,
  anchored_at: formatTimestamp(anchor.anchoredAt),
});

/** `{status: 'anchored', network, tx_hash, …}`, `{status: 'pending'}`, or null with anchoring off. */
export function anchorStateJson(state: AnchorState) {
  if (state === null) return null;
  return state === 'pending' ? { status: 'pending' } : { status: 'anchored', ...summaryJson(state) };
}

export function anchorCheckJson(check: AnchorCheck | null) {
  if (!check) return null;
  return { status: check.status, passed: check.passed, message: check.message, ...(check.anchor ? summaryJson(check.anchor) : {}) };
}

const SUMMARY_PROPERTIES = {
  network: { type: 'string', description: 'The Blockcerts network name (`mainnet`, `sepolia`, …).' },
  tx_hash: { type: 'string' },
  tx_url: { type: ['string', 'null'], format: 'uri' },
  block_number: { type: 'integer' },
  anchored_at: { type: 'string', format: 'date-time', description: "The block's time." },
};

export const ANCHOR_STATE_SCHEMA: JsonSchema = {
  anyOf: [
    { type: 'object', properties: { status: { type: 'string', enum: ['anchored', 'pending'] }, ...SUMMARY_PROPERTIES }, required: ['status'] },
    { type: 'null' },
  ],
  description: 'Blockchain anchoring (docs/anchoring.md): where, or `pending`; null when anchoring is off.',
};

export const ANCHOR_CHECK_SCHEMA: JsonSchema = {
  anyOf: [
    {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['anchored', 'failed', 'pending', 'unavailable'] },
        passed: { type: ['boolean', 'null'] },
        message: { type: ['string', 'null'] },
        ...SUMMARY_PROPERTIES,
      },
      required: ['status', 'passed', 'message'],
    },
    { type: 'null' },
  ],
  description:
    'The anchoring checked against the chain: root recomputed from the credential hash and its path, the transaction data read through ANCHOR_RPC_URL, its sender an address of the issuer profile. Null when anchoring is off.',
};
