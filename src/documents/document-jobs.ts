import { createHash } from 'node:crypto';
import { DocumentError } from './document-error.js';
import { signPdf, type SignatureDetails } from './pdf-signer.js';
import type { LayoutDrawing } from './layout-drawing.js';
import { renderLayout } from './layout-renderer.js';
import { rasterizeFirstPage } from './page-raster.js';
import { checkPdfStructure } from './pdf-structure.js';
import type { SigningKeyMaterial } from './pkcs12.js';
import { PreparedSigner } from './prepared-signer.js';
import { inspectSignedPdf, type SignatureInspection } from './signature-inspector.js';
import { renderTranscript } from './transcript.js';
import { checkUploadedFont } from './uploaded-font.js';
import type { TranscriptData } from './transcript-content.js';

/** Everything issuance needs to build its two signed documents, as plain cloneable data. */
export interface IssuanceDocumentsInput {
  /** The tenant's uploaded PDF, untrusted; or `layout`, the template's page the worker draws first. */
  source?: Uint8Array;
  layout?: LayoutDrawing;
  transcript: TranscriptData;
  /** The institution's key (a KeyObject crosses threads by structured clone) and certificate. */
  signing: SigningKeyMaterial;
  certificateDetails: SignatureDetails;
  transcriptDetails: SignatureDetails;
}

export interface IssuedDocuments {
  certificatePdf: Uint8Array;
  transcriptPdf: Uint8Array;
  /** The page drawn from `layout`, unsigned: the certificate's source file. */
  renderedPdf?: Uint8Array;
}

/** A unit of untrusted document work, run on a worker thread (see document-thread.ts). */
export type DocumentJob =
  | { kind: 'inspect'; pdf: Uint8Array }
  | { kind: 'issue'; input: IssuanceDocumentsInput }
  | { kind: 'render'; drawing: LayoutDrawing; format: PreviewFormat }
  | { kind: 'font'; bytes: Uint8Array };

/** What a preview of a template is drawn as: the PDF itself, or its page as a PNG. */
export type PreviewFormat = 'pdf' | 'png';

export type DocumentJobResult = SignatureInspection | IssuedDocuments | Uint8Array | CheckedFont;

export type CheckedFont = Awaited<ReturnType<typeof checkUploadedFont>>;

export function runDocumentJob(job: DocumentJob): Promise<DocumentJobResult> {
  if (job.kind === 'render') return renderPreview(job.drawing, job.format);
  if (job.kind === 'font') return checkUploadedFont(job.bytes);
  return job.kind === 'inspect' ? inspectSignedPdf(job.pdf) : buildIssuedDocuments(job.input);
}

async function renderPreview(drawing: LayoutDrawing, format: PreviewFormat): Promise<Uint8Array> {
  const pdf = await renderLayout(drawing);
  return format === 'png' ? rasterizeFirstPage(pdf) : pdf;
}

const MAX_CACHED_SIGNERS = 32;
const signers = new Map<string, PreparedSigner>();

/**
 * The signer for key material a job brought, kept by this thread: preparing one costs milliseconds
 * (more than both signatures), and a worker signs for the same few institutions over and over. A
 * cached signer is reused only for the very same key and certificates.
 */
function signerOf({ privateKey, certificate, chain }: SigningKeyMaterial): PreparedSigner {
  const key = [certificate, ...chain].reduce((hash, der) => hash.update(`${der.length}:`).update(der), createHash('sha256')).digest('hex');
  const cached = signers.get(key);
  if (cached?.material.privateKey.equals(privateKey)) return cached;
  const signer = new PreparedSigner({ privateKey, certificate: Buffer.from(certificate), chain: chain.map((der) => Buffer.from(der)) });
  if (signers.size >= MAX_CACHED_SIGNERS) signers.delete(signers.keys().next().value!);
  signers.set(key, signer);
  return signer;
}

/**
 * Stamps and signs the uploaded PDF (or the page drawn from the template's layout), renders and
 * signs the transcript; DocumentError when the upload or a file the layout draws cannot be used.
 */
export async function buildIssuedDocuments(input: IssuanceDocumentsInput): Promise<IssuedDocuments> {
  const renderedPdf = input.layout ? await renderLayout(input.layout) : undefined;
  const bytes = renderedPdf ?? input.source!;
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const refused = renderedPdf ? undefined : checkPdfStructure(source);
  if (refused) throw new DocumentError('PDF_UNREADABLE', `The PDF cannot be read: ${refused}`);
  const signer = signerOf(input.signing);
  const certificatePdf = await signPdf(source, signer, input.certificateDetails);
  const transcriptPdf = await signPdf(await renderTranscript(input.transcript), signer, input.transcriptDetails);
  return { certificatePdf, transcriptPdf, renderedPdf };
}
