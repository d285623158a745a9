import { PDFHexString, PDFString } from 'pdf-lib';
import { DocumentError } from './document-error.js';
// pdf-lib's stream compression through Node's zlib (see pdf-deflate.ts).
import './pdf-deflate.js';
import { lastCrossReference, PdfRevision, type CrossReference, type RawObject } from './pdf-update.js';
import { prepareSigner, PreparedSigner } from './prepared-signer.js';
import { addSignatureField, refuseLockedCertification } from './signature-field.js';
import type { SealPlacement } from './seal-placement.js';
import type { SigningIdentityBundle } from './signing-identity.js';
import { openPdf, stampCredential, type CredentialReference } from './source-pdf.js';

/** What the signature dictionary says about the signing, plus where the file points back to. */
export interface SignatureDetails extends CredentialReference {
  reason: string;
  signerName: string;
  location?: string;
  contactInfo?: string;
  /** Defaults to now; fixed in tests. */
  signingTime?: Date;
  /** Where the visible stamp goes; undefined signs invisibly. */
  seal?: SealPlacement;
}

// Ten digits each: files up to 10 GB, far past the upload limit.
const RANGE_WIDTH = 4 * 10 + 3;

/**
 * Signs a PDF with a PAdES baseline B-B signature (ETSI.CAdES.detached) by incremental update: the
 * input's bytes stay a prefix of the output, so signatures already in it keep verifying. The update
 * carries the credential reference in the info dictionary, the signature field (with its visible
 * stamp when `details.seal` is set) and the signature. Throws DocumentError for PDFs that are
 * encrypted, unreadable or certified against changes.
 */
export async function signPdf(pdf: Uint8Array, identity: SigningIdentityBundle | PreparedSigner, details: SignatureDetails): Promise<Buffer> {
  const signer = identity instanceof PreparedSigner ? identity : prepareSigner(identity);
  const { revision, signatureRef } = await openRevision(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  refuseLockedCertification(revision);
  const holeLength = signer.placeholderLength;
  let unsigned: Buffer;
  try {
    stampCredential(revision.document, details);
    await addSignatureField(revision, {
      signature: signatureRef,
      placement: details.seal,
      text: { certificateId: details.credentialUuid, verificationUrl: details.verificationUrl, signerName: details.signerName },
    });
    unsigned = revision.write([signatureDictionary(signatureRef, details, holeLength)]);
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    throw new DocumentError('PDF_UNREADABLE', 'The PDF structure cannot be signed.', { cause: error });
  }
  return fillSignature(unsigned, signer, holeLength);
}

/** Loads the PDF for an update; a file whose cross-reference is broken is rewritten once first (it cannot carry a valid signature anyway). */
async function openRevision(original: Buffer) {
  let bytes = original;
  let document = await openPdf(bytes);
  let previous: CrossReference | undefined = lastCrossReference(bytes);
  if (!previous) {
    bytes = Buffer.from(await document.save({ useObjectStreams: false, updateFieldAppearances: false, addDefaultPage: false }));
    document = await openPdf(bytes);
    previous = lastCrossReference(bytes);
    if (!previous) throw new DocumentError('PDF_UNREADABLE', 'The PDF cross-reference table cannot be rebuilt.');
  }
  const revision = new PdfRevision(document, bytes, previous);
  return { revision, signatureRef: document.context.nextRef() };
}

const SIGNATURE_MARKER = '/ByteRange [';

function signatureDictionary(ref: RawObject['ref'], details: SignatureDetails, holeLength: number): RawObject {
  const text = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? PDFString.of(escapeLiteral(value)) : PDFHexString.fromText(value)).toString();
  const entries = [
    '/Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached',
    `${SIGNATURE_MARKER}${' '.repeat(RANGE_WIDTH + 1)}`,
    `/Contents <${'0'.repeat(holeLength)}>`,
    `/M ${PDFString.fromDate(details.signingTime ?? new Date()).toString()}`,
    `/Name ${text(details.signerName)}`,
    `/Reason ${text(details.reason)}`,
    ...(details.location ? [`/Location ${text(details.location)}`] : []),
    ...(details.contactInfo ? [`/ContactInfo ${text(details.contactInfo)}`] : []),
  ];
  return { ref, body: Buffer.from(`<< ${entries.join('\n')} >>`, 'latin1') };
}

function escapeLiteral(value: string): string {
  return value.replace(/[()\\]/g, (char) => `\\${char}`);
}

/** Writes /ByteRange around the /Contents hole of the last signature dictionary, then the CMS into the hole. */
function fillSignature(unsigned: Buffer, signer: PreparedSigner, holeLength: number): Buffer {
  const marker = unsigned.lastIndexOf(SIGNATURE_MARKER);
  const holeStart = unsigned.indexOf('/Contents <', marker) + '/Contents '.length;
  const holeEnd = holeStart + holeLength + 2;
  const range = `0 ${holeStart} ${holeEnd} ${unsigned.length - holeEnd}`;
  // The padding goes after the closing bracket, where it is whitespace between dictionary entries.
  unsigned.write(`${range}]`.padEnd(RANGE_WIDTH + 1, ' '), marker + SIGNATURE_MARKER.length, 'latin1');
  const cms = signer.sign([unsigned.subarray(0, holeStart), unsigned.subarray(holeEnd)]);
  if (cms.length * 2 > holeLength) throw new Error(`the signature (${cms.length} bytes) outgrew its placeholder`);
  unsigned.write(cms.toString('hex'), holeStart + 1, 'latin1');
  return unsigned;
}
