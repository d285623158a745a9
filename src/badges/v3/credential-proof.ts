import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import * as vc from '@digitalbazaar/vc';
import { verifyingSuite } from './credential-signing.js';
import { documentLoader } from './document-loader.js';

export interface CredentialCheck {
  passed: boolean;
  message: string | null;
}

export interface ProofAndStatus {
  /** The Data Integrity proof, by a key the issuer's DID document lists for assertions. */
  proof: CredentialCheck;
  /** The revocation entry of the issuer's Bitstring Status List. */
  status: CredentialCheck & { revoked: boolean | null };
}

/** What the proof and status checks read: plain data, so they can run on a worker thread. */
export interface ProofCheckInput {
  credential: Record<string, unknown>;
  /** The DID documents, verification methods and status lists the credential names, looked up beforehand; nothing else is loaded. */
  documents: Map<string, object>;
  now: Date;
}

const check = (passed: boolean, message: string | null = null): CredentialCheck => ({ passed, message });

/**
 * The CPU-heavy part of verification (RDF canonicalisation, Ed25519): the proof at validFrom (the
 * validity period is a check of its own), then, if it holds, the revocation bit with the reference libraries.
 */
export async function checkProofAndStatus({ credential, documents, now }: ProofCheckInput): Promise<ProofAndStatus> {
  const loader = documentLoader(async (url) => documents.get(url) ?? null);
  const suite = await verifyingSuite();
  const at = typeof credential.validFrom === 'string' && !Number.isNaN(Date.parse(credential.validFrom)) ? new Date(credential.validFrom) : now;
  const proof = await vc.verifyCredential({ credential, suite, documentLoader: loader, now: at, checkStatus: async () => ({ verified: true }) });
  const proofError = proof.error?.errors?.[0] ?? proof.error ?? proof.results?.find((result) => !result.verified)?.error;
  const status = proof.verified ? await checkStatus({ credential, documentLoader: loader, suite }) : null;
  const revoked = status?.verified ? (status.results?.some((result) => result.status) ?? false) : null;
  return {
    proof: check(proof.verified, proof.verified ? null : (proofError?.message ?? 'The proof does not verify.')),
    status: {
      ...check(revoked === false, revoked ? 'Revoked by the issuer.' : revoked === null ? (status?.error?.message ?? 'Not checked: the proof failed.') : null),
      revoked,
    },
  };
}
