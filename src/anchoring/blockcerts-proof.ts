import { encodeMerkleProof, ethereumAnchor } from './merkle-proof.js';
import type { AnchorNetwork } from './networks.js';
import type { MerklePathStep } from './merkle-tree.js';
import { type BlockcertsDocument, issuingKeyId } from './blockcerts-documents.js';
import { formatSeconds } from '../timestamps.js';

export interface AnchorFacts {
  network: AnchorNetwork;
  txHash: string;
  merkleRoot: string;
  targetHash: string;
  path: MerklePathStep[];
  fromAddress: string;
  anchoredAt: Date;
  profileUrl: string;
}

/** The MerkleProof2019 proof (as a VC 2.0 DataIntegrityProof) that ties a credential to its anchoring transaction. */
export function merkleProof(facts: AnchorFacts): BlockcertsDocument {
  return {
    type: 'DataIntegrityProof',
    cryptosuite: 'merkle-proof-2019',
    created: formatSeconds(facts.anchoredAt),
    proofPurpose: 'assertionMethod',
    verificationMethod: `${facts.profileUrl}#${issuingKeyId(facts.fromAddress)}`,
    proofValue: encodeMerkleProof({
      merkleRoot: facts.merkleRoot,
      targetHash: facts.targetHash,
      path: facts.path,
      anchors: [ethereumAnchor(facts.network, facts.txHash)],
    }),
  };
}

export const signedCredential = (credential: BlockcertsDocument, facts: AnchorFacts): BlockcertsDocument => ({ ...credential, proof: merkleProof(facts) });
