import { isArrayBuffer } from 'node:util/types';
import type { PdfWorkerConfig } from '../config.js';
import { DocumentError, type DocumentErrorReason } from './document-error.js';
import type { CheckedFont, DocumentJob, DocumentJobResult, IssuanceDocumentsInput, IssuedDocuments, PreviewFormat } from './document-jobs.js';
import type { LayoutDrawing } from './layout-drawing.js';
import type { SignatureInspection } from './signature-inspector.js';
import { type JobOwner, threadEntry, UNOWNED, WorkerJobError, WorkerPool, type WorkerReply } from './worker-pool.js';

export const documentThreadEntry = (): URL => threadEntry(import.meta.url, 'document-thread.js');

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The service's gateway to untrusted PDF and CMS work: every parse of a PDF someone else made runs
 * on a pooled worker thread with time and heap limits; this thread only moves bytes. Tenants'
 * issuance and the public's inspections have separate pools, so a crowd of anonymous uploads never
 * queues in front of an issuance (and the public pool may run niced, on CPU time issuance leaves).
 */
export class DocumentWorkers {
  /** Issuance: tenants' work. */
  readonly tenantPool: WorkerPool<DocumentJob, DocumentJobResult>;
  /** Inspection of PDFs anyone uploads. */
  readonly publicPool: WorkerPool<DocumentJob, DocumentJobResult>;

  constructor(limits: PdfWorkerConfig, entry: URL = documentThreadEntry()) {
    this.tenantPool = new WorkerPool(entry, { ...limits, nice: 0 });
    this.publicPool = new WorkerPool(entry, { ...limits, ...limits.publicPool, jobTimeoutMs: limits.inspectTimeoutMs });
  }

  /**
   * Inspects an uploaded PDF's signatures, on the public pool in `owner`'s lane. A file that times out
   * or exhausts its worker comes back refused; only a full pool (WorkerJobError 'busy') or a shut-down
   * service throws. With `handOver`, `pdf`'s memory goes to the worker instead of being copied
   * (`handedOver`): the caller must not read `pdf` afterwards.
   */
  async inspect(pdf: Uint8Array, owner: JobOwner = UNOWNED, { handOver = false } = {}): Promise<SignatureInspection> {
    try {
      // Anyone may ask for an inspection, so it gets the shorter budget; issuance is authenticated.
      return (await this.value(this.publicPool, { kind: 'inspect', pdf }, owner, handOver ? handedOver(pdf) : [])) as SignatureInspection;
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        return { signed: false, intact: false, coversWholeFile: false, signatures: [], refused: error.message };
      }
      throw error;
    }
  }

  /** Builds issuance's signed certificate and transcript (and the drawn page, when drawn), on the tenants' pool in `owner`'s lane; DocumentError when the upload is unusable or hostile. */
  async issue(input: IssuanceDocumentsInput, owner: JobOwner = UNOWNED): Promise<{ certificatePdf: Buffer; transcriptPdf: Buffer; renderedPdf?: Buffer }> {
    try {
      const { certificatePdf, transcriptPdf, renderedPdf } = (await this.value(this.tenantPool, { kind: 'issue', input }, owner)) as IssuedDocuments;
      return { certificatePdf: asBuffer(certificatePdf), transcriptPdf: asBuffer(transcriptPdf), renderedPdf: renderedPdf && asBuffer(renderedPdf) };
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        throw new DocumentError('PDF_UNREADABLE', `The PDF cannot be read within the processing limits: ${error.message}`);
      }
      throw error;
    }
  }

  /** Draws a template's layout (a preview, as a PDF or a PNG) on the tenants' pool; DocumentError when a file it draws cannot be used. */
  async render(drawing: LayoutDrawing, format: PreviewFormat, owner: JobOwner = UNOWNED): Promise<Buffer> {
    try {
      return asBuffer((await this.value(this.tenantPool, { kind: 'render', drawing, format }, owner)) as Uint8Array);
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        throw new DocumentError('PDF_UNREADABLE', `The template cannot be drawn within the processing limits: ${error.message}`);
      }
      throw error;
    }
  }

  /** Checks an uploaded font a template names (uploaded-font.ts) on the tenants' pool; DocumentError when it cannot be drawn with. */
  async checkFont(bytes: Uint8Array, owner: JobOwner = UNOWNED): Promise<CheckedFont> {
    try {
      return (await this.value(this.tenantPool, { kind: 'font', bytes }, owner)) as CheckedFont;
    } catch (error) {
      if (error instanceof WorkerJobError && (error.kind === 'timeout' || error.kind === 'crashed')) {
        throw new DocumentError('FONT_UNREADABLE', `The font cannot be read within the processing limits: ${error.message}`);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.tenantPool.close(), this.publicPool.close()]);
  }

  /** Workers alive now, in both pools. */
  get size(): number {
    return this.tenantPool.size + this.publicPool.size;
  }

  private async value(
    pool: WorkerPool<DocumentJob, DocumentJobResult>,
    job: DocumentJob,
    owner: JobOwner,
    transfer: readonly ArrayBuffer[] = [],
  ): Promise<DocumentJobResult> {
    const reply: WorkerReply<DocumentJobResult> = await pool.run(job, owner, { transfer });
    if (reply.ok) return reply.value;
    if (reply.error.name === 'DocumentError') {
      throw new DocumentError(reply.error.reason as DocumentErrorReason, reply.error.message);
    }
    throw new Error(`document job failed: ${reply.error.name}: ${reply.error.message}`);
  }
}

/**
 * The memory of `bytes` to hand to a worker instead of copying it, when `bytes` is all of it (an upload
 * read into one buffer); none when it shares its memory (a slice of Node's buffer pool), which is then
 * copied. Copying a 19 MB upload into the job message took the event loop 100–200 ms under load
 * (docs/benchmarks.md, session 19). `bytes` is empty once the job is dispatched.
 */
function handedOver(bytes: Uint8Array): ArrayBuffer[] {
  const memory = bytes.buffer;
  return isArrayBuffer(memory) && !memory.resizable && bytes.byteOffset === 0 && bytes.byteLength === memory.byteLength ? [memory] : [];
}
