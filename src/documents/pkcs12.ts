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
const SUPPORTED_KEY_TYPES = new Set(['rsa', 'ec']);

/**
 * Bundles a key and its certificate (DER); AES-256 so OpenSSL 3 reads it without the legacy provider.
 * PKCS#12 stays on node-forge: its password-based encryption (PBES2, PBKDF2, MAC) is what forge
 * implements and tests, and the @peculiar schemas would leave all of that to us.
 */
export function writePkcs12(privateKey: KeyObject, certificate: Buffer, passphrase: string): Buffer {
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const forgeCertificate = forge.pki.certificateFromAsn1(forge.asn1.fromDer(certificate.toString('binary')));
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [forgeCertificate], passphrase, {
    algorithm: 'aes256',
    generateLocalKeyId: true,
  });
  return der(asn1);
}

/** Opens a PKCS#12 bundle; slow (forge decrypts in JavaScript), so callers cache the result. */
export function readPkcs12(p12: Uint8Array, passphrase: string): SigningKeyMaterial {
  const bundle = decrypt(p12, passphrase);
  const keyBag = [oids.pkcs8ShroudedKeyBag, oids.keyBag].flatMap((bagType) => bundle.getBags({ bagType })[bagType] ?? []).at(0);
  if (!keyBag) throw new DocumentError('IDENTITY_INCOMPLETE', 'The PKCS#12 bundle holds no private key.');
  const privateKey = nodeKey(keyBag);
  // forge parses RSA only; other keys and certificates come back as raw ASN.1, which Node reads.
  const certificates = (bundle.getBags({ bagType: oids.certBag })[oids.certBag] ?? []).map((bag) =>
    der(bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1),
  );
  const publicKey = createPublicKey(privateKey);
  const certificate = certificates.find((cert) => new X509Certificate(cert).publicKey.equals(publicKey));
  if (!certificate) {
    throw new DocumentError('IDENTITY_INCOMPLETE', 'The PKCS#12 bundle holds no certificate for its private key.');
  }
  return { privateKey, certificate, chain: certificates.filter((cert) => cert !== certificate) };
}

function nodeKey(bag: forge.pkcs12.Bag): KeyObject {
  let key: KeyObject | undefined;
  try {
    key = bag.key ? createPrivateKey(forge.pki.privateKeyToPem(bag.key)) : createPrivateKey({ key: der(bag.asn1), format: 'der', type: 'pkcs8' });
  } catch {
    key = undefined;
  }
  if (!key?.asymmetricKeyType || !SUPPORTED_KEY_TYPES.has(key.asymmetricKeyType)) {
    throw new DocumentError('IDENTITY_UNSUPPORTED', 'Only RSA and EC signing keys are supported.');
  }
  return key;
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

function der(asn1: forge.asn1.Asn1): Buffer {
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
