import type { RequestContext } from '../context/request-context.js';
import { ResourceBase } from '../resources/resource.service.js';
import { Job, JobStatus } from './job.entity.js';
import type { StoredItemResult } from './job.views.js';
import { jobFinishedEvent } from '../webhooks/webhook-events.js';
import { webhookMessagesInsert } from '../webhooks/webhook.outbox.js';

/** How long a worker holds a job between two progress saves before another may take it over. */
export const JOB_LEASE_SECONDS = 120;

const PROGRESS = `update jobs
  set results = ?::jsonb, done = ?, failed = ?, locked_until = now() + make_interval(secs => ?), updated_at = now()
  where uuid = ? and tenant_uuid = ?`;

const COMPLETE = `update jobs set status = 'completed', finished_at = now(), locked_until = null, updated_at = now()
  where uuid = ? and tenant_uuid = ? and status <> 'completed'
  returning uuid, kind, total, done, failed, finished_at`;

interface CompletedJob {
  uuid: string;
  kind: string;
  total: number;
  done: number;
  failed: number;
  finished_at: Date;
}

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
    await ctx.em.getConnection().execute(PROGRESS, [JSON.stringify(results), results.length - failed, failed, JOB_LEASE_SECONDS, uuid, ctx.tenant.uuid], 'run');
  }

  /** The job completed, and `job.finished` queued in the same transaction (once: completing a completed job does nothing). */
  async complete(ctx: RequestContext, uuid: string): Promise<void> {
    const connection = ctx.em.getConnection();
    await connection.transactional(async (trx) => {
      const [job] = await connection.execute<CompletedJob[]>(COMPLETE, [uuid, ctx.tenant.uuid], 'all', trx);
      if (!job) return;
      const insert = webhookMessagesInsert([jobFinishedEvent({ ...job, finishedAt: new Date(job.finished_at) })], ctx.tenant.uuid);
      await connection.execute(insert.sql, insert.params, 'run', trx);
    });
  }
}

export const jobs = new JobService();
