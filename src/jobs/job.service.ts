import type { RequestContext } from '../context/request-context.js';
import { ResourceBase } from '../resources/resource.service.js';
import { Job, JobStatus } from './job.entity.js';
import { completeJob, saveJobProgress } from './job.repository.js';
import type { StoredItemResult } from './job.views.js';
import { jobFinishedEvent } from '../webhooks/webhook-events.js';

/** How long a worker holds a job between two progress saves before another may take it over. */
export const JOB_LEASE_SECONDS = 120;

/** Jobs of the request's tenant: created by the request that asks for the work, progressed by whoever runs it. */
export class JobService extends ResourceBase<Job> {
  protected readonly entity = Job;
  protected readonly label = 'Job';

  /** A new job; `held` when the creating request runs it itself (no worker may claim it meanwhile). */
  async create(ctx: RequestContext, job: { kind: string; total: number; payload: unknown; held: boolean }): Promise<Job> {
    const em = ctx.em.fork();
    const row = em.create(Job, {
      kind: job.kind,
      total: job.total,
      payload: job.payload,
      clientId: ctx.principal.clientId,
      status: job.held ? JobStatus.running : JobStatus.queued,
      lockedUntil: job.held ? new Date(Date.now() + JOB_LEASE_SECONDS * 1000) : null,
    });
    await em.flush();
    return row;
  }

  /** Saves the results so far and renews the lease. */
  async progress(ctx: RequestContext, uuid: string, results: StoredItemResult[]): Promise<void> {
    const failed = results.filter((result) => result.status === 'failed').length;
    await saveJobProgress(ctx.em, uuid, ctx.tenant.uuid, results, failed, JOB_LEASE_SECONDS);
  }

  /** The job completed, and `job.finished` queued in the same transaction (once: completing a completed job does nothing). */
  async complete(ctx: RequestContext, uuid: string): Promise<void> {
    await completeJob(ctx.em, uuid, ctx.tenant.uuid, (job) => jobFinishedEvent({ ...job, finishedAt: new Date(job.finished_at) }));
  }
}

export const jobs = new JobService();
