import { createHash, X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, id_ce_subjectKeyIdentifier, SubjectKeyIdentifier } from '@peculiar/asn1-x509';

/** What the service records about a signing certificate. */
export interface CertificateSummary {
  certificatePem: string;
  /** Lowercase hex SHA-256 of the certificate's DER, without separators. */
  fingerprintSha256: string;
  notAfter: Date;
  commonName?: string;
}

const COMMON_NAME = '2.5.4.3';

export function describeCertificate(der: Buffer): CertificateSummary {
  const certificate = parseCertificate(der);
  return {
    certificatePem: new X509Certificate(der).toString(),
    fingerprintSha256: fingerprintSha256(der),
    notAfter: certificate.tbsCertificate.validity.notAfter.getTime(),
    commonName: commonNameOf(certificate),
  };
}

export function fingerprintSha256(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

export function parseCertificate(der: Uint8Array): Certificate {
  return AsnConvert.parse(der, Certificate);
}

/** The key identifier of the subjectKeyIdentifier extension, if the certificate has one. */
export function subjectKeyIdentifier(certificate: Certificate): Buffer | undefined {
  const extension = certificate.tbsCertificate.extensions?.find((candidate) => candidate.extnID === id_ce_subjectKeyIdentifier);
  return extension && Buffer.from(AsnConvert.parse(extension.extnValue, SubjectKeyIdentifier).buffer);
}

/** The subject's CN, so names with commas or non-ASCII letters come back verbatim. */
export function commonName(der: Buffer): string | undefined {
  return commonNameOf(parseCertificate(der));
}

function commonNameOf(certificate: Certificate): string | undefined {
  for (const rdn of certificate.tbsCertificate.subject) {
    for (const attribute of rdn) if (attribute.type === COMMON_NAME) return attribute.value.toString();
  }
  return undefined;
}
