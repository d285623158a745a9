import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ADOBE_PKCS7_DETACHED } from '@signpdf/utils';
import { PDFArray, PDFDict, PDFName, PDFNumber, type PDFDocument } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import { prepareSigner, PreparedSigner } from './prepared-signer.js';
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
}

const signing = new SignPdf();

/**
 * Signs a PDF with a detached CMS signature (adbe.pkcs7.detached) after writing the credential
 * reference into its info dictionary. Throws DocumentError for PDFs that are encrypted or unreadable.
 */
export async function signPdf(pdf: Uint8Array, identity: SigningIdentityBundle | PreparedSigner, details: SignatureDetails): Promise<Buffer> {
  const signer = identity instanceof PreparedSigner ? identity : prepareSigner(identity);
  const signingTime = details.signingTime ?? new Date();
  const document = await openPdf(pdf);
  stampCredential(document, details);
  const withPlaceholder = await addPlaceholder(document, signer, { ...details, signingTime });
  return signing.sign(withPlaceholder, signer, signingTime);
}

async function addPlaceholder(document: PDFDocument, signer: PreparedSigner, details: SignatureDetails) {
  try {
    normaliseAcroForm(document);
    pdflibAddPlaceholder({
      pdfDoc: document,
      reason: literal(details.reason),
      name: literal(details.signerName),
      location: literal(details.location ?? ''),
      contactInfo: literal(details.contactInfo ?? ''),
      signingTime: details.signingTime,
      signatureLength: signer.placeholderLength,
      subFilter: SUBFILTER_ADOBE_PKCS7_DETACHED,
    });
    // Regenerating form appearances would need fonts the uploaded form may not carry.
    return Buffer.from(await document.save({ updateFieldAppearances: false, addDefaultPage: false }));
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', 'The PDF structure cannot be signed.', { cause: error });
  }
}

/**
 * pdflibAddPlaceholder only appends to a direct /Fields array and a direct /SigFlags number; an
 * indirect one (common in uploaded forms) would make it drop the existing fields or fail.
 */
function normaliseAcroForm(document: PDFDocument): void {
  const acroForm = document.catalog.lookup(PDFName.of('AcroForm'));
  if (!(acroForm instanceof PDFDict)) {
    document.catalog.delete(PDFName.of('AcroForm'));
    return;
  }
  const fields = acroForm.lookup(PDFName.of('Fields'));
  acroForm.set(PDFName.of('Fields'), fields instanceof PDFArray ? fields : document.context.obj([]));
  const flags = acroForm.lookup(PDFName.of('SigFlags'));
  if (flags instanceof PDFNumber) acroForm.set(PDFName.of('SigFlags'), flags);
  else acroForm.delete(PDFName.of('SigFlags'));
}

/**
 * The placeholder writes these strings between parentheses unescaped, one byte per character:
 * escape delimiters, and encode non-ASCII text as UTF-16BE with its byte-order mark.
 */
function literal(text: string): string {
  const bytes = /^[\x20-\x7e]*$/.test(text) ? Buffer.from(text, 'latin1') : Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
  let escaped = '';
  for (const byte of bytes) {
    const plain = byte >= 0x20 && byte <= 0x7e && byte !== 0x28 && byte !== 0x29 && byte !== 0x5c;
    escaped += plain ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return escaped;
}
