import type { PdfWorkerConfig } from '../config.js';
import { DocumentError, type DocumentErrorReason } from './document-error.js';
import type { DocumentJob, DocumentJobResult, IssuanceDocumentsInput, IssuedDocuments } from './document-jobs.js';
import type { LayoutDrawing } from './layout-drawing.js';
import type { SignatureInspection } from './signature-inspector.js';
import { threadEntry, WorkerJobError, WorkerPool, type WorkerReply } from './worker-pool.js';

export const documentThreadEntry = (): URL => threadEntry(import.meta.url, 'document-thread.js');

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The service's gateway to untrusted PDF and CMS work: every parse of a PDF someone else made runs
 * on a pooled worker thread with time and heap limits; this thread only moves bytes.
 */
export class DocumentWorkers {
  private readonly pool: WorkerPool<DocumentJob, DocumentJobResult>;

  constructor(
    private readonly limits: PdfWorkerConfig,
    entry: URL = documentThreadEntry(),
  ) {
    this.pool = new WorkerPool(entry, limits);
  }

  /**
   * Inspects an uploaded PDF's signatures. A file that times out or exhausts its worker comes back
   * refused; only a full pool (WorkerJobError 'busy') or a shut-down service throws.
   */
  async inspect(pdf: Uint8Array): Promise<SignatureInspection> {
    try {
      // Anyone may ask for an inspection, so it gets the shorter budget; issuance is authenticated.
      return (await this.value({ kind: 'inspect', pdf }, this.limits.inspectTimeoutMs)) as SignatureInspection;
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        return { signed: false, intact: false, coversWholeFile: false, signatures: [], refused: error.message };
      }
      throw error;
    }
  }

  /** Builds issuance's signed certificate and transcript; DocumentError when the upload is unusable or hostile. */
  async issue(input: IssuanceDocumentsInput): Promise<{ certificatePdf: Buffer; transcriptPdf: Buffer; renderedPdf?: Buffer }> {
    try {
      const { certificatePdf, transcriptPdf, renderedPdf } = (await this.value({ kind: 'issue', input })) as IssuedDocuments;
      return { certificatePdf: asBuffer(certificatePdf), transcriptPdf: asBuffer(transcriptPdf), renderedPdf: renderedPdf && asBuffer(renderedPdf) };
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        throw new DocumentError('PDF_UNREADABLE', `The PDF cannot be read within the processing limits: ${error.message}`);
      }
      throw error;
    }
  }

  /** Draws a template's layout (a preview); DocumentError when a file it draws cannot be used. */
  async render(drawing: LayoutDrawing): Promise<Buffer> {
    try {
      return asBuffer((await this.value({ kind: 'render', drawing })) as Uint8Array);
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        throw new DocumentError('PDF_UNREADABLE', `The template cannot be drawn within the processing limits: ${error.message}`);
      }
      throw error;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Workers alive now. */
  get size(): number {
    return this.pool.size;
  }

  private async value(job: DocumentJob, timeoutMs?: number): Promise<DocumentJobResult> {
    const reply: WorkerReply<DocumentJobResult> = await this.pool.run(job, timeoutMs);
    if (reply.ok) return reply.value;
    if (reply.error.name === 'DocumentError') {
      throw new DocumentError(reply.error.reason as DocumentErrorReason, reply.error.message);
    }
    throw new Error(`document job failed: ${reply.error.name}: ${reply.error.message}`);
  }
}
