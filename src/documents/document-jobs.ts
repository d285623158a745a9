import { createHash } from 'node:crypto';
import { DocumentError } from './document-error.js';
import { signPdf, type SignatureDetails } from './pdf-signer.js';
import { checkPdfStructure } from './pdf-structure.js';
import type { SigningKeyMaterial } from './pkcs12.js';
import { PreparedSigner } from './prepared-signer.js';
import { inspectSignedPdf, type SignatureInspection } from './signature-inspector.js';
import { renderTranscript } from './transcript.js';
import type { TranscriptData } from './transcript-content.js';

/** Everything issuance needs to build its two signed documents, as plain cloneable data. */
export interface IssuanceDocumentsInput {
  /** The tenant's uploaded PDF, untrusted. */
  source: Uint8Array;
  transcript: TranscriptData;
  /** The institution's key (a KeyObject crosses threads by structured clone) and certificate. */
  signing: SigningKeyMaterial;
  certificateDetails: SignatureDetails;
  transcriptDetails: SignatureDetails;
}

export interface IssuedDocuments {
  certificatePdf: Uint8Array;
  transcriptPdf: Uint8Array;
}

/** A unit of untrusted document work, run on a worker thread (see document-thread.ts). */
export type DocumentJob = { kind: 'inspect'; pdf: Uint8Array } | { kind: 'issue'; input: IssuanceDocumentsInput };

export type DocumentJobResult = SignatureInspection | IssuedDocuments;

export function runDocumentJob(job: DocumentJob): Promise<DocumentJobResult> {
  return job.kind === 'inspect' ? inspectSignedPdf(job.pdf) : buildIssuedDocuments(job.input);
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

/** Stamps and signs the uploaded PDF, renders and signs the transcript; DocumentError when the upload cannot be used. */
export async function buildIssuedDocuments(input: IssuanceDocumentsInput): Promise<IssuedDocuments> {
  const source = Buffer.from(input.source.buffer, input.source.byteOffset, input.source.byteLength);
  const refused = checkPdfStructure(source);
  if (refused) throw new DocumentError('PDF_UNREADABLE', `The PDF cannot be read: ${refused}`);
  const signer = signerOf(input.signing);
  const certificatePdf = await signPdf(source, signer, input.certificateDetails);
  const transcriptPdf = await signPdf(await renderTranscript(input.transcript), signer, input.transcriptDetails);
  return { certificatePdf, transcriptPdf };
}
