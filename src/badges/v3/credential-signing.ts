import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { documentLoader } from './document-loader.js';
import type { IssuerSigner } from './issuer-keys.js';

/** Signing needs the contexts only: a loader that knows nothing else fetches nothing. */
const contextsOnly = documentLoader();

/**
 * A `DataIntegrityProof` (cryptosuite `eddsa-rdfc-2022`, RDF canonicalisation then Ed25519) on
 * `credential`, by the reference library. Costs a few milliseconds of CPU (canonicalisation).
 */
export async function signCredential(credential: Record<string, unknown>, signer: IssuerSigner): Promise<Record<string, unknown>> {
  const suite = new DataIntegrityProof({ signer, cryptosuite });
  return vc.issue({ credential, suite, documentLoader: contextsOnly });
}

/** A suite that verifies eddsa-rdfc-2022 proofs (no signer). */
export const verifyingSuite = () => new DataIntegrityProof({ cryptosuite });
