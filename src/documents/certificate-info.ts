import { createHash, X509Certificate } from 'node:crypto';
import { Oid } from './cms-oids.js';
import { contextTag, decodeOid, decodeString, readDer } from './der.js';

/** What the service records about a signing certificate. */
export interface CertificateSummary {
  certificatePem: string;
  /** Lowercase hex SHA-256 of the certificate's DER, without separators. */
  fingerprintSha256: string;
  notAfter: Date;
  commonName?: string;
}

export function describeCertificate(der: Buffer): CertificateSummary {
  const x509 = new X509Certificate(der);
  return {
    certificatePem: x509.toString(),
    fingerprintSha256: fingerprintSha256(der),
    notAfter: x509.validToDate,
    commonName: commonName(der),
  };
}

export function fingerprintSha256(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/** Issuer, serial number and subject of a certificate, as raw DER. */
export function certificateIdentity(der: Buffer) {
  const tbs = readDer(der).children[0];
  const offset = tbs.children[0].tag === contextTag(0) ? 1 : 0;
  return {
    serial: tbs.children[offset].raw,
    issuer: tbs.children[offset + 2].raw,
    subject: tbs.children[offset + 4],
  };
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
