import { Decoder, Encoder } from '@blockcerts/lds-merkle-proof-2019';
import type { MerklePathStep } from './merkle-tree.js';
import type { AnchorNetwork } from './networks.js';

/** The decoded `proofValue` of a MerkleProof2019 proof (hex hashes, `blink:` anchors). */
export interface MerkleProofValue {
  merkleRoot: string;
  targetHash: string;
  path: MerklePathStep[];
  anchors: string[];
}

/** `blink:eth:<network>:<tx hash without 0x>`, the anchor Blockcerts verifiers read. */
export const ethereumAnchor = (network: AnchorNetwork, txHash: string) => `blink:eth:${network}:${txHash.replace(/^0x/, '').toLowerCase()}`;

/** `z` + base58btc of the keymapped CBOR, with the Blockcerts reference encoder. */
export function encodeMerkleProof(value: MerkleProofValue): string {
  const json = value.path.length > 0 ? value : { merkleRoot: value.merkleRoot, targetHash: value.targetHash, anchors: value.anchors };
  return new Encoder(json).encode();
}

/** The proof value back as JSON, or null when it is not a well-formed MerkleProof2019 value. */
export function decodeMerkleProof(proofValue: unknown): MerkleProofValue | null {
  if (typeof proofValue !== 'string' || proofValue.length > 100_000) return null;
  try {
    const decoded = new Decoder(proofValue).decode() as Partial<MerkleProofValue>;
    if (typeof decoded.merkleRoot !== 'string' || typeof decoded.targetHash !== 'string' || !Array.isArray(decoded.anchors)) return null;
    return { merkleRoot: decoded.merkleRoot, targetHash: decoded.targetHash, path: decoded.path ?? [], anchors: decoded.anchors };
  } catch {
    return null;
  }
}
