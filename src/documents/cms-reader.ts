import { Attribute, ContentInfo, id_signedData, SignedData, type SignerIdentifier } from '@peculiar/asn1-cms';
import { AsnConvert, AsnParser, OctetString } from '@peculiar/asn1-schema';
import { Time, type Certificate } from '@peculiar/asn1-x509';
import { subjectKeyIdentifier } from './certificate-info.js';
import { CmsOid, SignedAttributesSet } from './cms-signature.js';
import { id_aa_signingCertificateV2, SigningCertificateV2 } from './ess-signing-certificate.js';

/** What a verifier needs from the one signer of a CMS SignedData. */
export interface CmsSigner {
  /** DER of every embedded certificate. */
  certificates: Buffer[];
  /** The certificates the signer identifier names (issuer and serial number, or key identifier); at most a few. */
  candidates: Buffer[];
  digestAlgorithm: string;
  signatureAlgorithm: string;
  signature: Buffer;
  /** The signed attributes as the DER SET OF that the signature covers. */
  signedAttributes?: Buffer;
  messageDigest?: Buffer;
  signingTime?: Date;
  /** SHA-256 of the certificate named by an ESS signing-certificate-v2 attribute, when present. */
  signingCertificateHash?: Buffer;
}

export class CmsError extends Error {}

/** A signer embeds its certificate and a short chain; more is an attempt to make verifiers work. */
export const MAX_CERTIFICATES = 16;
export const MAX_CANDIDATES = 4;
/** Far above a signature with a long chain and a timestamp; the PDF hole is checked against it first. */
export const MAX_CMS_BYTES = 512 * 1024;
/** What asn1js may build from one CMS: real signatures nest ~12 deep and hold a few thousand nodes. */
const BER_LIMITS = { maxDepth: 40, maxNodes: 20_000, maxContentLength: MAX_CMS_BYTES };

/** Digest algorithm OIDs, including the RSA and ECDSA signature OIDs that imply one. */
export const HASH_BY_OID: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/**
 * Reads the first signer of a ContentInfo wrapping SignedData (DER or BER, trailing zero padding
 * allowed); throws when malformed or past the limits, never spends more than they allow.
 */
export function readCmsSigner(der: Buffer): CmsSigner {
  if (der.length > MAX_CMS_BYTES) throw new CmsError('CMS too large');
  const options = { berOptions: BER_LIMITS };
  const contentInfo = AsnParser.parse(der, ContentInfo, options);
  if (contentInfo.contentType !== id_signedData) throw new CmsError('not a CMS SignedData');
  const signedData = AsnParser.parse(contentInfo.content, SignedData, options);
  const parsed = (signedData.certificates ?? []).flatMap((choice) => (choice.certificate ? [choice.certificate] : []));
  if (parsed.length > MAX_CERTIFICATES) throw new CmsError('SignedData carries too many certificates');
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) throw new CmsError('SignedData without a signer');
  // Only the certificates the signer names are tried: never every embedded certificate.
  const candidates = parsed.filter((certificate) => identifies(signerInfo.sid, certificate)).slice(0, MAX_CANDIDATES);
  return {
    certificates: parsed.map(encode),
    candidates: candidates.map(encode),
    digestAlgorithm: signerInfo.digestAlgorithm.algorithm,
    signatureAlgorithm: signerInfo.signatureAlgorithm.algorithm,
    signature: Buffer.from(signerInfo.signature.buffer),
    ...(signerInfo.signedAttrs ? readSignedAttributes(signerInfo.signedAttrs) : {}),
  };
}

const encode = (certificate: Certificate) => Buffer.from(AsnConvert.serialize(certificate));

function readSignedAttributes(attributes: Attribute[]) {
  const valueOf = (type: string) => attributes.find((attribute) => attribute.attrType === type)?.attrValues[0];
  const messageDigest = valueOf(CmsOid.messageDigest);
  const signingTime = valueOf(CmsOid.signingTime);
  const essCertificate = valueOf(id_aa_signingCertificateV2);
  return {
    // [0] IMPLICIT on the wire, a SET OF under the signature. RFC 5652 requires them in DER, which
    // re-encoding reproduces byte for byte (attribute values are kept as read); a BER-encoded set
    // fails verification here as it does in NSS.
    signedAttributes: Buffer.from(AsnConvert.serialize(new SignedAttributesSet(attributes))),
    messageDigest: messageDigest && Buffer.from(AsnParser.parse(messageDigest, OctetString).buffer),
    signingTime: signingTime && AsnParser.parse(signingTime, Time).getTime(),
    signingCertificateHash: essCertificate && firstCertHash(essCertificate),
  };
}

/** The hash of the first ESSCertIDv2; only SHA-256 ones (the default) are reported. */
function firstCertHash(value: ArrayBuffer): Buffer | undefined {
  try {
    const first = AsnParser.parse(value, SigningCertificateV2, { berOptions: BER_LIMITS }).certs[0];
    if (!first || (first.hashAlgorithm && first.hashAlgorithm.algorithm !== CmsOid.sha256)) return undefined;
    return Buffer.from(first.certHash.buffer);
  } catch {
    return undefined;
  }
}

/** Whether the sid (IssuerAndSerialNumber or SubjectKeyIdentifier) names this certificate. */
function identifies(sid: SignerIdentifier, certificate: Certificate): boolean {
  try {
    if (sid.subjectKeyIdentifier) return subjectKeyIdentifier(certificate)?.equals(Buffer.from(sid.subjectKeyIdentifier.buffer)) === true;
    const named = sid.issuerAndSerialNumber;
    if (!named) return false;
    const { issuer, serialNumber } = certificate.tbsCertificate;
    return (
      Buffer.from(serialNumber).equals(Buffer.from(named.serialNumber)) &&
      Buffer.from(AsnConvert.serialize(issuer)).equals(Buffer.from(AsnConvert.serialize(named.issuer)))
    );
  } catch {
    return false;
  }
}
