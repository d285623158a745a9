import { createHash, verify, X509Certificate } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { commonName, fingerprintSha256 } from './certificate-info.js';
import { HASH_BY_OID } from './cms-oids.js';
import { readCmsSigner, type CmsSigner } from './cms-reader.js';
import { readCredentialReference } from './source-pdf.js';
import { coveredParts, locateLastSignature, type LocatedSignature } from './signature-locator.js';

export interface SignatureInspection {
  /** A signature with a readable CMS SignedData is present. */
  signed: boolean;
  /** The covered bytes hash to the signed digest and the signature verifies with the signer's key. */
  intact: boolean;
  /** Nothing but the signature itself lies outside the covered bytes (no later additions). */
  coversWholeFile: boolean;
  signerCommonName?: string;
  certificateFingerprintSha256?: string;
  signedAt?: Date;
  credentialUuid?: string;
  reason?: string;
}

const UNSIGNED: SignatureInspection = { signed: false, intact: false, coversWholeFile: false };

/**
 * Checks the last signature of an uploaded file. Never throws: the public verification page feeds it
 * arbitrary uploads. Integrity only: anyone can sign with a self-made certificate, so a caller that
 * vouches for a file must also compare certificateFingerprintSha256 with the institution's own.
 */
export async function inspectSignedPdf(pdf: Uint8Array): Promise<SignatureInspection> {
  try {
    const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
    const located = locateLastSignature(bytes);
    const signer = located && readSigner(located.cms);
    if (!located || !signer) return { ...UNSIGNED };
    const { intact, certificate } = verifySigner(signer, coveredParts(bytes, located.byteRange));
    const [start1, , start2, length2] = located.byteRange;
    return {
      signed: true,
      intact,
      coversWholeFile: start1 === 0 && start2 + length2 === bytes.length,
      signerCommonName: certificate && safely(() => commonName(certificate)),
      certificateFingerprintSha256: certificate && fingerprintSha256(certificate),
      signedAt: signer.signingTime,
      ...(await readSignedRevision(bytes, located)),
    };
  } catch {
    return { ...UNSIGNED };
  }
}

function readSigner(cms: Buffer): CmsSigner | undefined {
  return safely(() => readCmsSigner(cms));
}

function verifySigner(signer: CmsSigner, covered: Buffer[]): { intact: boolean; certificate?: Buffer } {
  const hash = HASH_BY_OID[signer.digestAlgorithm];
  if (!hash) return { intact: false, certificate: signer.candidates[0] };
  const digest = covered.reduce((h, part) => h.update(part), createHash(hash)).digest();
  const signedBytes = signer.signedAttributes ?? Buffer.concat(covered);
  const digestMatches = signer.signedAttributes ? signer.messageDigest?.equals(digest) === true : true;
  const signatureHash = HASH_BY_OID[signer.signatureAlgorithm] ?? hash;
  const certificate = signer.candidates.find((der) =>
    safely(() => verify(signatureHash, signedBytes, new X509Certificate(der).publicKey, signer.signature)),
  );
  return { intact: digestMatches && certificate !== undefined, certificate: certificate ?? signer.candidates[0] };
}

/** Reads the revision the signature covers, so details appended later cannot pose as signed. */
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
  return range.size() === 4 && byteRange.every((n, i) => {
    const value = range.lookup(i);
    return value instanceof PDFNumber && value.asNumber() === n;
  });
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
