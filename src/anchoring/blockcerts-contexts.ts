import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';

/**
 * The JSON-LD contexts of Blockcerts v3 documents, from the Blockcerts schemas package (the same
 * files the reference verifier preloads): nothing is fetched when hashing or verifying.
 */
const require = createRequire(import.meta.url);
const schema = (path: string): object => require(`@blockcerts/schemas/schemas/${path}`) as object;

export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const BLOCKCERTS_V3_2_CONTEXT = 'https://w3id.org/blockcerts/v3.2';

const CONTEXTS = new Map<string, object>([
  [VC_V2_CONTEXT, schema('3.2/credential_v2.json')],
  [BLOCKCERTS_V3_2_CONTEXT, schema('3.2/context.json')],
  ['https://w3id.org/blockcerts/schema/3.2/context.json', schema('3.2/context.json')],
  ['https://w3id.org/security/data-integrity/v2', schema('3.2/dataIntegrityProof.json')],
  ['https://w3id.org/security/suites/merkle-2019/v1', schema('3.1/merkleProof2019Context.json')],
]);

async function loadContext(url: string) {
  const document = CONTEXTS.get(url);
  if (!document) throw new Error(`"${url}" is not a bundled Blockcerts context; nothing is fetched.`);
  return { contextUrl: null, documentUrl: url, document };
}

/** The RDF-canonicalised N-Quads of a document, as Blockcerts hashes it. */
export async function canonicalNQuads(document: object): Promise<string> {
  // jsonld is loaded by the first document hashed: anchoring and its checks, not every start.
  const { default: jsonld } = await import('jsonld');
  return jsonld.canonize(document, { algorithm: 'RDFC-1.0', format: 'application/n-quads', documentLoader: loadContext });
}

/** What a Blockcerts Merkle leaf is: SHA-256 (hex) of the canonical N-Quads of the credential without its proof. */
export async function credentialHash(credential: Record<string, unknown>): Promise<string> {
  const { proof: _proof, ...unsigned } = credential;
  return createHash('sha256')
    .update(await canonicalNQuads(unsigned), 'utf8')
    .digest('hex');
}
