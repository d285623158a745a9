import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { DocumentError } from './document-error.js';

/** A signing key with its certificate (DER) and any further certificates of its chain. */
export interface SigningKeyMaterial {
  privateKey: KeyObject;
  certificate: Buffer;
  chain: Buffer[];
}

const { oids } = forge.pki;

/** Bundles a key and its certificate; AES-256 so OpenSSL 3 reads it without the legacy provider. */
export function writePkcs12(privateKeyPem: string, certificate: forge.pki.Certificate, passphrase: string): Buffer {
  const key = forge.pki.privateKeyFromPem(privateKeyPem);
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [certificate], passphrase, {
    algorithm: 'aes256',
    generateLocalKeyId: true,
  });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** Opens a PKCS#12 bundle; slow (forge decrypts in JavaScript), so callers cache the result. */
export function readPkcs12(p12: Uint8Array, passphrase: string): SigningKeyMaterial {
  const bundle = decrypt(p12, passphrase);
  const keyBag = [oids.pkcs8ShroudedKeyBag, oids.keyBag]
    .flatMap((bagType) => bundle.getBags({ bagType })[bagType] ?? [])
    .at(0);
  if (!keyBag) throw new DocumentError('IDENTITY_INCOMPLETE', 'The PKCS#12 bundle holds no private key.');
  if (!keyBag.key) {
    throw new DocumentError('IDENTITY_UNSUPPORTED', 'Only RSA signing keys are supported in PKCS#12 bundles.');
  }
  const privateKey = createPrivateKey(forge.pki.privateKeyToPem(keyBag.key));
  const certificates = (bundle.getBags({ bagType: oids.certBag })[oids.certBag] ?? []).flatMap((bag) =>
    bag.cert ? [Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(bag.cert)).getBytes(), 'binary')] : [],
  );
  const publicKey = createPublicKey(privateKey);
  const certificate = certificates.find((der) => new X509Certificate(der).publicKey.equals(publicKey));
  if (!certificate) {
    throw new DocumentError('IDENTITY_INCOMPLETE', 'The PKCS#12 bundle holds no certificate for its private key.');
  }
  return { privateKey, certificate, chain: certificates.filter((der) => der !== certificate) };
}

function decrypt(p12: Uint8Array, passphrase: string): forge.pkcs12.Pkcs12Pfx {
  try {
    const asn1 = forge.asn1.fromDer(Buffer.from(p12).toString('binary'), false);
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, passphrase);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/password|decrypt/i.test(message)) {
      throw new DocumentError('IDENTITY_WRONG_PASSPHRASE', 'The PKCS#12 passphrase is wrong.', { cause: error });
    }
    throw new DocumentError('IDENTITY_UNREADABLE', `The PKCS#12 bundle cannot be read: ${message}`, {
      cause: error,
    });
  }
}
