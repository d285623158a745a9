import { createHash, verify, X509Certificate } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { commonName, fingerprintSha256 } from './certificate-info.js';
import { HASH_BY_OID } from './cms-oids.js';
import { readCmsSigner, type CmsSigner } from './cms-reader.js';
import { checkPdfStructure, PDF_LIMITS } from './pdf-structure.js';
import { readCredentialReference } from './source-pdf.js';
import { coveredParts, locateSignatures, type LocatedSignature } from './signature-locator.js';

/** One signature of a file, checked on its own. */
export interface SignatureReport {
  byteRange: LocatedSignature['byteRange'];
  /** The CMS could be read. */
  readable: boolean;
  /** The signature value verifies with the key of a certificate the signer identifier names. */
  signatureValid: boolean;
  /** The covered bytes hash to the digest the signature covers. */
  digestMatches: boolean;
  /** signatureValid and digestMatches: the covered bytes are what the key holder signed. */
  intact: boolean;
  /** Nothing but the signature itself lies outside the covered bytes (no later additions). */
  coversWholeFile: boolean;
  signerCommonName?: string;
  /** Of the certificate that verified, or else of the one the signer identifier names. */
  certificateFingerprintSha256?: string;
  signedAt?: Date;
}

export interface SignatureInspection {
  /** The first signature (the one that made the document) has a readable CMS SignedData. */
  signed: boolean;
  intact: boolean;
  coversWholeFile: boolean;
  signerCommonName?: string;
  certificateFingerprintSha256?: string;
  signedAt?: Date;
  /** Read from the revision the first signature covers, so details appended later cannot pose as signed. */
  credentialUuid?: string;
  reason?: string;
  /** Every signature found, in file order. */
  signatures: SignatureReport[];
  /** Set when the file exceeded a structural or processing limit and was not examined. */
  refused?: string;
  /** Lowercase hex SHA-256 of the whole file, computed beside the parse rather than on the caller's thread. */
  sha256?: string;
}

const RSA_MAX_MODULUS_BITS = 4096;
const RSA_MAX_PUBLIC_EXPONENT = 2n ** 32n;

/**
 * Checks the signatures of an uploaded file. Never throws: the public verification page feeds it
 * arbitrary uploads (and runs it on a worker thread). Integrity only: anyone can sign with a
 * self-made certificate, so a caller that vouches for a file must also compare the fingerprints
 * with the institution's own.
 */
export async function inspectSignedPdf(pdf: Uint8Array): Promise<SignatureInspection> {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  return { ...(await inspect(bytes)), sha256: createHash('sha256').update(bytes).digest('hex') };
}

async function inspect(bytes: Buffer): Promise<SignatureInspection> {
  const refused = safely(() => checkPdfStructure(bytes)) ?? undefined;
  if (refused) return { signed: false, intact: false, coversWholeFile: false, signatures: [], refused: `The PDF cannot be read: ${refused}` };
  try {
    const located = locateSignatures(bytes, PDF_LIMITS.signatures);
    const signatures = located.map((signature) => examine(bytes, signature));
    const first = signatures[0];
    if (!first?.readable) return { signed: false, intact: false, coversWholeFile: false, signatures };
    const { byteRange, readable: _readable, signatureValid: _valid, digestMatches: _digest, ...summary } = first;
    return { signed: true, ...summary, ...(await readSignedRevision(bytes, located[0])), signatures };
  } catch {
    return { signed: false, intact: false, coversWholeFile: false, signatures: [] };
  }
}

function examine(bytes: Buffer, located: LocatedSignature): SignatureReport {
  const [start1, , start2, length2] = located.byteRange;
  const coversWholeFile = start1 === 0 && start2 + length2 === bytes.length;
  const signer = located.cms && safely(() => readCmsSigner(located.cms!));
  const unread = { byteRange: located.byteRange, readable: false, signatureValid: false, digestMatches: false, intact: false, coversWholeFile };
  if (!signer) return unread;
  const { signatureValid, digestMatches, certificate } = verifySigner(signer, coveredParts(bytes, located.byteRange));
  return {
    ...unread,
    readable: true,
    signatureValid,
    digestMatches,
    intact: signatureValid && digestMatches,
    signerCommonName: certificate && safely(() => commonName(certificate)),
    certificateFingerprintSha256: certificate && fingerprintSha256(certificate),
    signedAt: signer.signingTime,
  };
}

function verifySigner(signer: CmsSigner, covered: Buffer[]) {
  const hash = HASH_BY_OID[signer.digestAlgorithm];
  if (!hash) return { signatureValid: false, digestMatches: false, certificate: signer.candidates[0] };
  const digest = covered.reduce((h, part) => h.update(part), createHash(hash)).digest();
  const signedBytes = signer.signedAttributes ?? Buffer.concat(covered);
  const digestMatches = signer.signedAttributes ? signer.messageDigest?.equals(digest) === true : true;
  const signatureHash = HASH_BY_OID[signer.signatureAlgorithm] ?? hash;
  const certificate = signer.candidates.find((der) =>
    safely(() => {
      const publicKey = new X509Certificate(der).publicKey;
      return affordable(publicKey) && verify(signatureHash, signedBytes, publicKey, signer.signature);
    }),
  );
  return { signatureValid: certificate !== undefined, digestMatches, certificate: certificate ?? signer.candidates[0] };
}

/** RSA keys past these bounds make one verification cost seconds; no real signer uses them. */
function affordable(publicKey: X509Certificate['publicKey']): boolean {
  if (publicKey.asymmetricKeyType !== 'rsa' && publicKey.asymmetricKeyType !== 'rsa-pss') return true;
  const { modulusLength = Infinity, publicExponent = RSA_MAX_PUBLIC_EXPONENT + 1n } = publicKey.asymmetricKeyDetails ?? {};
  return modulusLength <= RSA_MAX_MODULUS_BITS && publicExponent <= RSA_MAX_PUBLIC_EXPONENT;
}

/** Reads the revision a signature covers. */
async function readSignedRevision(bytes: Buffer, located: LocatedSignature) {
  const [, , start2, length2] = located.byteRange;
  // Strict parsing: lenient pdf-lib logs every broken object to the console, and uploads to the
  // public verification page can be anything.
  const document = await PDFDocument.load(bytes.subarray(0, start2 + length2), {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: true,
  }).catch(() => undefined);
  if (!document) return {};
  const { credentialUuid } = safely(() => readCredentialReference(document)) ?? {};
  return { credentialUuid, reason: safely(() => signatureReason(document, located.byteRange)) };
}

function signatureReason(document: PDFDocument, byteRange: LocatedSignature['byteRange']): string | undefined {
  for (const [, object] of document.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const range = object.lookup(PDFName.of('ByteRange'));
    if (!(range instanceof PDFArray) || !sameRange(range, byteRange)) continue;
    const reason = object.lookup(PDFName.of('Reason'));
    return reason instanceof PDFString || reason instanceof PDFHexString ? reason.decodeText() : undefined;
  }
  return undefined;
}

function sameRange(range: PDFArray, byteRange: LocatedSignature['byteRange']): boolean {
  return (
    range.size() === 4 &&
    byteRange.every((n, i) => {
      const value = range.lookup(i);
      return value instanceof PDFNumber && value.asNumber() === n;
    })
  );
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
