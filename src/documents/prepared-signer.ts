import { createHash } from 'node:crypto';
import { Signer } from '@signpdf/utils';
import { commonName } from './certificate-info.js';
import { buildDetachedSignature } from './cms-writer.js';
import { readPkcs12, type SigningKeyMaterial } from './pkcs12.js';
import type { SigningIdentityBundle } from './signing-identity.js';

// CMS framing around the certificates and the signature value, with room to spare.
const CMS_OVERHEAD_BYTES = 1024;
const CACHE_LIMIT = 256;

/**
 * A signing identity opened once. Opening a PKCS#12 costs ~30 ms of JavaScript cryptography and
 * @signpdf/signer-p12 repeats it (and signs in JavaScript) on every call; this signer does not.
 */
export class PreparedSigner extends Signer {
  readonly commonName: string | undefined;
  /** Hex characters to reserve in the PDF's /Contents for this signer's CMS. */
  readonly placeholderLength: number;

  /** Key and certificates; what a document worker thread receives to sign with. */
  constructor(readonly material: SigningKeyMaterial) {
    super();
    this.commonName = commonName(material.certificate);
    const certificates = [material.certificate, ...material.chain].reduce((sum, der) => sum + der.length, 0);
    const signatureBytes = (material.privateKey.asymmetricKeyDetails?.modulusLength ?? 4096) / 8;
    this.placeholderLength = 2 * (certificates + signatureBytes + CMS_OVERHEAD_BYTES);
  }

  override async sign(content: Buffer, signingTime?: Date): Promise<Buffer> {
    return buildDetachedSignature({
      content,
      privateKey: this.material.privateKey,
      certificate: this.material.certificate,
      chain: this.material.chain,
      signingTime: signingTime ?? new Date(),
    });
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
