import { createHash, verify, X509Certificate } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { commonName, fingerprintSha256 } from './certificate-info.js';
import { HASH_BY_OID, MAX_CMS_BYTES, readCmsSigner, type CmsSigner } from './cms-reader.js';
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
    const examined = located.map((signature) => examine(bytes, signature));
    // The latest revision a signature covers: the issuer's signature, added after any the upload carried.
    const latest = examined.reduce<number>((best, report, i) => (best < 0 || rangeEnd(report) > rangeEnd(examined[best]!) ? i : best), -1);
    // An unreadable CMS ends it here: parsing the PDF behind garbage would only give hostile files more work.
    if (!examined[latest]?.readable) return { signed: false, intact: false, coversWholeFile: false, signatures: examined };
    const revision = await readSignedRevision(bytes, located[latest]!, located);
    const signatures = examined.map((report, i) => ({ ...report, signedAt: revision?.signingTimes[i] ?? report.signedAt }));
    const summary = signatures[latest]!;
    const { byteRange: _range, readable: _readable, signatureValid: _valid, digestMatches: _digest, ...facts } = summary;
    return { signed: true, ...facts, credentialUuid: revision?.credentialUuid, reason: revision?.reasons[latest], signatures };
  } catch {
    return { signed: false, intact: false, coversWholeFile: false, signatures: [] };
  }
}

function examine(bytes: Buffer, located: LocatedSignature): SignatureReport {
  const [start1, , start2, length2] = located.byteRange;
  const coversWholeFile = start1 === 0 && start2 + length2 === bytes.length;
  const signer = located.cms && located.cms.length <= MAX_CMS_BYTES ? safely(() => readCmsSigner(located.cms!)) : undefined;
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

const rangeEnd = (report: SignatureReport) => report.byteRange[2] + report.byteRange[3];

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
      return affordable(publicKey) && verify(signatureHash, signedBytes, publicKey, signer.signature) && bound(signer, der);
    }),
  );
  return { signatureValid: certificate !== undefined, digestMatches, certificate: certificate ?? signer.candidates[0] };
}

/** ESS signing-certificate-v2, when present, names the one certificate the signer meant. */
function bound(signer: CmsSigner, certificate: Buffer): boolean {
  return !signer.signingCertificateHash || createHash('sha256').update(certificate).digest().equals(signer.signingCertificateHash);
}

/** RSA keys past these bounds make one verification cost seconds; no real signer uses them. */
function affordable(publicKey: X509Certificate['publicKey']): boolean {
  if (publicKey.asymmetricKeyType !== 'rsa' && publicKey.asymmetricKeyType !== 'rsa-pss') return true;
  const { modulusLength = Infinity, publicExponent = RSA_MAX_PUBLIC_EXPONENT + 1n } = publicKey.asymmetricKeyDetails ?? {};
  return modulusLength <= RSA_MAX_MODULUS_BITS && publicExponent <= RSA_MAX_PUBLIC_EXPONENT;
}

/**
 * Reads the revision `latest` covers: the credential reference written into it, and the reason and
 * signing time (/M, where PAdES puts it) of every signature dictionary it holds.
 */
async function readSignedRevision(bytes: Buffer, latest: LocatedSignature, all: LocatedSignature[]) {
  const [, , start2, length2] = latest.byteRange;
  // Strict parsing: lenient pdf-lib logs every broken object to the console, and uploads to the
  // public verification page can be anything.
  const document = await PDFDocument.load(bytes.subarray(0, start2 + length2), {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: true,
  }).catch(() => undefined);
  if (!document) return undefined;
  const { credentialUuid } = safely(() => readCredentialReference(document)) ?? {};
  const dictionaries = safely(() => signatureDictionaries(document)) ?? [];
  const find = (signature: LocatedSignature) => dictionaries.find((dictionary) => sameRange(dictionary, signature.byteRange));
  return {
    credentialUuid,
    reasons: all.map((signature) => text(find(signature)?.lookup(PDFName.of('Reason')))),
    signingTimes: all.map((signature) => date(text(find(signature)?.lookup(PDFName.of('M'))))),
  };
}

function signatureDictionaries(document: PDFDocument): PDFDict[] {
  const found: PDFDict[] = [];
  for (const [, object] of document.context.enumerateIndirectObjects()) {
    if (object instanceof PDFDict && object.lookup(PDFName.of('ByteRange')) instanceof PDFArray) found.push(object);
  }
  return found;
}

function text(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

/** A PDF date (D:YYYYMMDDHHmmSSOHH'mm), as far as it is given. */
function date(value: string | undefined): Date | undefined {
  const match = value && /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?/.exec(value);
  if (!match) return undefined;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', sign, offsetHours = '00', offsetMinutes = '00'] = match;
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 * (sign === '-' ? -1 : sign === '+' ? 1 : 0);
  const result = new Date(utc - offset);
  return Number.isNaN(result.getTime()) ? undefined : result;
}

function sameRange(dictionary: PDFDict, byteRange: LocatedSignature['byteRange']): boolean {
  const range = dictionary.lookup(PDFName.of('ByteRange'));
  return (
    range instanceof PDFArray &&
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
