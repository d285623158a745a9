import { documentLoader } from './document-loader.js';
import type { IssuerSigner } from './issuer-keys.js';

/** Signing needs the contexts only: a loader that knows nothing else fetches nothing. */
const contextsOnly = documentLoader();

/**
 * The reference libraries of Data Integrity proofs (with jsonld, rdf-canonize and undici under them):
 * loaded by the first proof made or checked, not by every start.
 */
async function dataIntegrity() {
  const [{ DataIntegrityProof }, { cryptosuite }, vc] = await Promise.all([
    import('@digitalbazaar/data-integrity'),
    import('@digitalbazaar/eddsa-rdfc-2022-cryptosuite'),
    import('@digitalbazaar/vc'),
  ]);
  return { DataIntegrityProof, cryptosuite, vc };
}

/**
 * A `DataIntegrityProof` (cryptosuite `eddsa-rdfc-2022`, RDF canonicalisation then Ed25519) on
 * `credential`, by the reference library. Costs a few milliseconds of CPU (canonicalisation).
 */
export async function signCredential(credential: Record<string, unknown>, signer: IssuerSigner): Promise<Record<string, unknown>> {
  const { DataIntegrityProof, cryptosuite, vc } = await dataIntegrity();
  const suite = new DataIntegrityProof({ signer, cryptosuite });
  return vc.issue({ credential, suite, documentLoader: contextsOnly });
}

/** A suite that verifies eddsa-rdfc-2022 proofs (no signer). */
export async function verifyingSuite() {
  const { DataIntegrityProof, cryptosuite } = await dataIntegrity();
  return new DataIntegrityProof({ cryptosuite });
}
