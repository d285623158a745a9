import { certificateIdentity, subjectKeyIdentifier } from './certificate-info.js';
import { Oid } from './cms-oids.js';
import { contextTag, decodeOid, decodeTime, readDer, Tag, type DerElement } from './der.js';

/** What a verifier needs from the one signer of a CMS SignedData. */
export interface CmsSigner {
  /** DER of every embedded certificate. */
  certificates: Buffer[];
  /** The certificates the signer identifier names (issuer and serial number, or key identifier); at most a few. */
  candidates: Buffer[];
  digestAlgorithm: string;
  signatureAlgorithm: string;
  signature: Buffer;
  /** The signed attributes re-tagged as the SET OF that the signature covers, exactly as encoded. */
  signedAttributes?: Buffer;
  messageDigest?: Buffer;
  signingTime?: Date;
}

export class CmsError extends Error {}

/** A signer embeds its certificate and a short chain; more is an attempt to make verifiers work. */
export const MAX_CERTIFICATES = 16;
export const MAX_CANDIDATES = 4;

/** Reads the first signer of a ContentInfo wrapping SignedData; throws CmsError/DerError when malformed. */
export function readCmsSigner(der: Buffer): CmsSigner {
  const contentInfo = readDer(der);
  const [type, wrapped] = contentInfo.children;
  if (type?.tag !== Tag.OID || decodeOid(type.value) !== Oid.signedData || !wrapped?.children[0]) {
    throw new CmsError('not a CMS SignedData');
  }
  const signedData = wrapped.children[0].children;
  const certificates = signedData.find((part) => part.tag === contextTag(0))?.children.map((cert) => cert.raw) ?? [];
  if (certificates.length > MAX_CERTIFICATES) throw new CmsError('SignedData carries too many certificates');
  const signerInfo = signedData[signedData.length - 1]?.children[0];
  if (!signerInfo || signerInfo.tag !== Tag.SEQUENCE) throw new CmsError('SignedData without a signer');
  return { certificates, ...readSignerInfo(signerInfo, certificates) };
}

function readSignerInfo(info: DerElement, certificates: Buffer[]): Omit<CmsSigner, 'certificates'> {
  const [, sid, digestAlgorithm, ...rest] = info.children;
  const attributes = rest[0]?.tag === contextTag(0) ? rest.shift() : undefined;
  const [signatureAlgorithm, signature] = rest;
  if (!sid || !digestAlgorithm || !signatureAlgorithm || signature?.tag !== Tag.OCTET_STRING) {
    throw new CmsError('SignerInfo incomplete');
  }
  // Only the certificates the signer names are tried: never every embedded certificate.
  const matching = certificates.filter((cert) => identifies(sid, cert));
  return {
    candidates: matching.slice(0, MAX_CANDIDATES),
    digestAlgorithm: decodeOid(digestAlgorithm.children[0].value),
    signatureAlgorithm: decodeOid(signatureAlgorithm.children[0].value),
    signature: signature.value,
    ...(attributes ? readSignedAttributes(attributes) : {}),
  };
}

function readSignedAttributes(attributes: DerElement) {
  const valueOf = (type: string) => attributes.children.find((attribute) => decodeOid(attribute.children[0].value) === type)?.children[1]?.children[0];
  const messageDigest = valueOf(Oid.messageDigest);
  const signingTime = valueOf(Oid.signingTime);
  return {
    signedAttributes: Buffer.concat([Buffer.from([Tag.SET]), attributes.raw.subarray(1)]),
    messageDigest: messageDigest?.tag === Tag.OCTET_STRING ? messageDigest.value : undefined,
    signingTime: signingTime ? decodeTime(signingTime) : undefined,
  };
}

/** SignerIdentifier's subjectKeyIdentifier choice: [0] IMPLICIT OCTET STRING. */
const SUBJECT_KEY_IDENTIFIER_SID = 0x80;

/** Whether the sid (IssuerAndSerialNumber or SubjectKeyIdentifier) names this certificate. */
function identifies(sid: DerElement, certificate: Buffer): boolean {
  try {
    if (sid.tag === SUBJECT_KEY_IDENTIFIER_SID) return subjectKeyIdentifier(certificate)?.equals(sid.value) === true;
    if (sid.tag !== Tag.SEQUENCE) return false;
    const { issuer, serial } = certificateIdentity(certificate);
    return sid.children[0]?.raw.equals(issuer) === true && sid.children[1]?.raw.equals(serial) === true;
  } catch {
    return false;
  }
}
