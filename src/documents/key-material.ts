import { createPrivateKey } from 'node:crypto';
import { AsnArray, AsnConvert, AsnPropTypes, AsnType, AsnTypeTypes } from '@peculiar/asn1-schema';
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

/** SEQUENCE OF certificates, each kept as the exact DER it came as. */
@AsnType({ type: AsnTypeTypes.Sequence, itemType: AsnPropTypes.Any })
class CertificateList extends AsnArray<ArrayBuffer> {}

export function exportKeyMaterial(material: SigningKeyMaterial): ExportedKeyMaterial {
  return {
    privateKey: material.privateKey.export({ format: 'der', type: 'pkcs8' }),
    certificates: Buffer.from(AsnConvert.serialize(new CertificateList([material.certificate, ...material.chain].map((der) => new Uint8Array(der).buffer)))),
  };
}

export function importKeyMaterial({ privateKey, certificates }: ExportedKeyMaterial): SigningKeyMaterial {
  const [certificate, ...chain] = AsnConvert.parse(certificates, CertificateList).map((der) => Buffer.from(der));
  if (!certificate) throw new DocumentError('IDENTITY_INCOMPLETE', 'The stored signing identity holds no certificate.');
  return { privateKey: createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }), certificate, chain };
}
