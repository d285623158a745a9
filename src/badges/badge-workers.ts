import type { WorkerPoolLimits } from '../config.js';
import { invalid } from '../errors/domain-error.js';
import { type JobOwner, threadEntry, UNOWNED, WorkerJobError, WorkerPool, type WorkerReply } from '../documents/worker-pool.js';
import type { BadgeJob, BadgeJobResult, BakeInput, Baked, UnbakeInput } from './badge-jobs.js';
import type { ProofAndStatus, ProofCheckInput } from './v3/credential-proof.js';

/** Why a badge was refused although nothing in it was wrong by itself: it cost more than a worker may spend. */
export const PROCESSING_LIMIT = 'PROCESSING_LIMIT';

/**
 * The service's gateway to CPU-heavy badge work on input from outside: baking and unbaking images
 * and checking credential proofs run on pooled worker threads with time and heap limits (the limits and
 * recycling of WorkerPool); this thread only looks documents up and moves data. All of it is done for
 * public requests: the pool is a public one (niced, a lane per client address, time charged to it).
 */
export class BadgeWorkers {
  readonly pool: WorkerPool<BadgeJob, BadgeJobResult>;

  constructor(
    private readonly limits: WorkerPoolLimits,
    entry: URL = threadEntry(import.meta.url, 'badge-thread.js'),
  ) {
    this.pool = new WorkerPool(entry, limits);
  }

  /** What the image carries; a 422 on `file` when it cannot be read, within the limits or at all. */
  async unbake(input: UnbakeInput, owner: JobOwner = UNOWNED): Promise<{ json: string } | { url: string } | null> {
    const found = await this.value({ kind: 'unbake', input }, owner, 'file', 'The image cannot be read');
    if (found && 'refused' in found) throw invalid({ file: [found.refused] });
    return found as { json: string } | { url: string } | null;
  }

  /** The badge image with an assertion or credential baked in; a 422 on `image` when the image cannot be baked, within the limits or at all. */
  async bake(input: BakeInput, owner: JobOwner = UNOWNED): Promise<Buffer> {
    const baked = (await this.value({ kind: 'bake', input }, owner, 'image', 'The badge image cannot be baked')) as Baked;
    if ('refused' in baked) throw invalid({ image: [baked.refused] });
    return Buffer.from(baked.bytes.buffer, baked.bytes.byteOffset, baked.bytes.byteLength);
  }

  /** The proof and revocation checks of a credential; a 422 on `credential` when they exceed the limits. */
  async checkProofAndStatus(input: ProofCheckInput, owner: JobOwner = UNOWNED): Promise<ProofAndStatus> {
    return (await this.value({ kind: 'check', input }, owner, 'credential', 'The credential cannot be verified')) as ProofAndStatus;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Workers alive now. */
  get size(): number {
    return this.pool.size;
  }

  private async value(job: BadgeJob, owner: JobOwner, field: string, refusal: string): Promise<BadgeJobResult> {
    let reply: WorkerReply<BadgeJobResult>;
    try {
      reply = await this.pool.run(job, owner);
    } catch (error) {
      if (!(error instanceof WorkerJobError) || error.kind === 'closed') throw error;
      // A full pool is answered 503 with Retry-After by the error classifier (it is `atCapacity`).
      if (error.kind === 'busy') throw new WorkerJobError('busy', 'Too many badges are being checked; try again shortly.');
      const limit = error.kind === 'timeout' ? `${this.limits.jobTimeoutMs} ms` : 'the memory of a worker';
      throw invalid({ [field]: [`${refusal} within ${limit}; it is refused.`] }, PROCESSING_LIMIT);
    }
    if (reply.ok) return reply.value;
    throw new Error(`badge job failed: ${reply.error.name}: ${reply.error.message}`);
  }
}
