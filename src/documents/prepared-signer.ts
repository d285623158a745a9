import { createHash } from 'node:crypto';
import { commonName } from './certificate-info.js';
import { CmsSignerTemplate } from './cms-signature.js';
import { readPkcs12, type SigningKeyMaterial } from './pkcs12.js';
import type { SigningIdentityBundle } from './signing-identity.js';

// CMS framing, signed attributes (with signing-certificate-v2) and the signature value's envelope, with room to spare.
const CMS_OVERHEAD_BYTES = 1536;
const CACHE_LIMIT = 256;

/**
 * A signing identity opened once: Node key objects and the CMS parts that depend only on the
 * certificates, so a signature costs one hash, one native RSA/ECDSA operation and its encoding.
 */
export class PreparedSigner {
  readonly commonName: string | undefined;
  /** Hex characters to reserve in the PDF's /Contents for this signer's CMS. */
  readonly placeholderLength: number;

  /** Key and certificates; what a document worker thread receives to sign with. */
  private readonly template: CmsSignerTemplate;

  constructor(readonly material: SigningKeyMaterial) {
    this.template = new CmsSignerTemplate(material);
    this.commonName = commonName(material.certificate);
    const certificates = [material.certificate, ...material.chain].reduce((sum, der) => sum + der.length, 0);
    const signatureBytes = (material.privateKey.asymmetricKeyDetails?.modulusLength ?? 4096) / 8;
    this.placeholderLength = 2 * (certificates + signatureBytes + CMS_OVERHEAD_BYTES);
  }

  /** A CAdES detached signature of the concatenated parts (a PDF's two byte ranges). */
  sign(content: Buffer | Buffer[]): Buffer {
    return this.template.sign(content);
  }
}

// Keyed by a hash of bundle and passphrase together: a hit proves the caller holds both, so the cache
// cannot hand one tenant's key to a request that merely names it.
const cache = new Map<string, PreparedSigner>();

/** Opens a signing identity, or returns the one already opened for the same bundle and passphrase. */
export function prepareSigner(identity: SigningIdentityBundle): PreparedSigner {
  const key = cacheKey(identity);
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const signer = new PreparedSigner(readPkcs12(identity.p12, identity.passphrase));
  cache.set(key, signer);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return signer;
}

function cacheKey({ p12, passphrase }: SigningIdentityBundle): string {
  const digest = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
  return createHash('sha256').update(digest(p12)).update(digest(passphrase)).digest('base64');
}
