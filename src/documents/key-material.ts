import { createPrivateKey } from 'node:crypto';
import { readDer, sequence } from './der.js';
import { DocumentError } from './document-error.js';
import type { SigningKeyMaterial } from './pkcs12.js';

/**
 * A signing key in storable form: the private key as unencrypted PKCS#8 DER (for the caller to seal;
 * never store it as is) and the public certificates as one DER SEQUENCE, the signer's first.
 */
export interface ExportedKeyMaterial {
  privateKey: Buffer;
  certificates: Buffer;
}

export function exportKeyMaterial(material: SigningKeyMaterial): ExportedKeyMaterial {
  return {
    privateKey: material.privateKey.export({ format: 'der', type: 'pkcs8' }),
    certificates: sequence(material.certificate, ...material.chain),
  };
}

export function importKeyMaterial({ privateKey, certificates }: ExportedKeyMaterial): SigningKeyMaterial {
  const [certificate, ...chain] = readDer(certificates).children.map((element) => Buffer.from(element.raw));
  if (!certificate) throw new DocumentError('IDENTITY_INCOMPLETE', 'The stored signing identity holds no certificate.');
  return { privateKey: createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }), certificate, chain };
}
