import { createHash, X509Certificate } from 'node:crypto';
import { Oid } from './cms-oids.js';
import { contextTag, decodeOid, decodeString, decodeTime, readDer } from './der.js';

/** What the service records about a signing certificate. */
export interface CertificateSummary {
  certificatePem: string;
  /** Lowercase hex SHA-256 of the certificate's DER, without separators. */
  fingerprintSha256: string;
  notAfter: Date;
  commonName?: string;
}

export function describeCertificate(der: Buffer): CertificateSummary {
  const notAfter = decodeTime(certificateIdentity(der).validity.children[1]);
  if (!notAfter) throw new Error('certificate validity unreadable');
  return {
    certificatePem: new X509Certificate(der).toString(),
    fingerprintSha256: fingerprintSha256(der),
    notAfter,
    commonName: commonName(der),
  };
}

export function fingerprintSha256(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/** Parts of a certificate's TBSCertificate, as DER elements. */
export function certificateIdentity(der: Buffer) {
  const tbs = readDer(der).children[0];
  const offset = tbs.children[0].tag === contextTag(0) ? 1 : 0;
  return {
    serial: tbs.children[offset].raw,
    issuer: tbs.children[offset + 2].raw,
    validity: tbs.children[offset + 3],
    subject: tbs.children[offset + 4],
    extensions: tbs.children.find((part) => part.tag === contextTag(3))?.children[0],
  };
}

const SUBJECT_KEY_IDENTIFIER = '2.5.29.14';

/** The key identifier of the subjectKeyIdentifier extension, if the certificate has one. */
export function subjectKeyIdentifier(der: Buffer): Buffer | undefined {
  for (const extension of certificateIdentity(der).extensions?.children ?? []) {
    const [type, ...rest] = extension.children;
    if (!type || decodeOid(type.value) !== SUBJECT_KEY_IDENTIFIER) continue;
    const value = rest[rest.length - 1];
    return value ? readDer(value.value).value : undefined;
  }
  return undefined;
}

/** The subject's CN read from the DER, so names with commas or non-ASCII letters come back verbatim. */
export function commonName(der: Buffer): string | undefined {
  for (const rdn of certificateIdentity(der).subject.children) {
    for (const attribute of rdn.children) {
      const [type, value] = attribute.children;
      if (type && value && decodeOid(type.value) === Oid.commonName) return decodeString(value);
    }
  }
  return undefined;
}
