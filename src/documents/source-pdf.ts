import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { DocumentError } from './document-error.js';

/** Where a signed file points back to: its certificate and the page that verifies it. */
export interface CredentialReference {
  credentialUuid?: string;
  verificationUrl?: string;
}

const CREDENTIAL_UUID = PDFName.of('CredentialUuid');
const VERIFICATION_URL = PDFName.of('VerificationUrl');

/** Loads an uploaded PDF for rewriting; DocumentError (a 422 for the caller) when it cannot be used. */
export async function openPdf(bytes: Uint8Array): Promise<PDFDocument> {
  let document: PDFDocument;
  try {
    // updateMetadata: false keeps the author's Producer/Creator/dates instead of pdf-lib's. Encryption
    // is checked below: pdf-lib's own EncryptedPDFError does not survive instanceof (ES5 build).
    document = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
  } catch (error) {
    if (declaresEncryption(bytes)) throw encrypted(error);
    throw new DocumentError('PDF_UNREADABLE', 'The file cannot be read as a PDF.', { cause: error });
  }
  if (document.isEncrypted) throw encrypted();
  if (pageCount(document) === 0) throw new DocumentError('PDF_WITHOUT_PAGES', 'The PDF has no pages.');
  return document;
}

const encrypted = (cause?: unknown) => new DocumentError('PDF_ENCRYPTED', 'The PDF is encrypted; upload it without a password.', { cause });

function declaresEncryption(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf('/Encrypt') >= 0;
}

function pageCount(document: PDFDocument): number {
  try {
    return document.getPageCount();
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', 'The PDF page tree cannot be read.', { cause: error });
  }
}

/** Writes the reference into the info dictionary, so an uploaded copy can be traced to its certificate. */
export function stampCredential(document: PDFDocument, reference: CredentialReference): void {
  const { credentialUuid, verificationUrl } = reference;
  if (!credentialUuid && !verificationUrl) return;
  const subject = [credentialUuid && `Credential ${credentialUuid}`, verificationUrl && `verify at ${verificationUrl}`];
  document.setSubject(subject.filter(Boolean).join(', '));
  document.setKeywords([credentialUuid, verificationUrl].filter((part): part is string => Boolean(part)));
  const info = infoDictionary(document);
  if (!info) return;
  if (credentialUuid) info.set(CREDENTIAL_UUID, PDFHexString.fromText(credentialUuid));
  if (verificationUrl) info.set(VERIFICATION_URL, PDFHexString.fromText(verificationUrl));
}

export function readCredentialReference(document: PDFDocument): CredentialReference {
  const info = infoDictionary(document);
  return { credentialUuid: text(info?.lookup(CREDENTIAL_UUID)), verificationUrl: text(info?.lookup(VERIFICATION_URL)) };
}

function infoDictionary(document: PDFDocument): PDFDict | undefined {
  const info = document.context.lookup(document.context.trailerInfo.Info);
  return info instanceof PDFDict ? info : undefined;
}

function text(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}
