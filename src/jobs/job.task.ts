import type { Task, TaskList } from 'graphile-worker';
import type { Principal } from '../auth/token.service.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { QueueKind } from '../queue/job-queue.js';
import { claimJob, releaseJob } from './job.repository.js';
import { JOB_LEASE_SECONDS } from './job.service.js';

/** A job a worker has leased, with what its runner needs to act as the client that asked for it. */
export interface ClaimedJob {
  uuid: string;
  kind: string;
  payload: unknown;
  results: unknown[];
  principal: Principal;
}

/** Runs (or resumes, from `results`) one job; returns early when `stopping()` turns true, leaving the rest for later. */
export type JobRunner = (job: ClaimedJob, stopping: () => boolean) => Promise<void>;

/**
 * Runs one job (payload: its uuid) with the runner of its kind, from where its results left off. A
 * failure is logged and the job taken up again once its lease runs out; stopping the queue stops it
 * between chunks and hands it back at once.
 */
function jobTask(orm: Orm, runner: JobRunner, logger: Logger): Task {
  return async (payload, helpers) => {
    const row = await claimJob(orm, (payload as { uuid: string }).uuid, JOB_LEASE_SECONDS);
    if (!row) return;
    const tenant = { uuid: row.tenant_uuid, identifier: row.tenant_identifier, name: row.tenant_name };
    const job = { uuid: row.uuid, kind: row.kind, payload: row.payload, results: row.results, principal: { clientId: row.client_id, tenant } };
    const stopping = () => helpers.abortSignal.aborted;
    try {
      await runner(job, stopping);
    } catch (error) {
      logger.error({ err: error, job: job.uuid }, 'job failed; it is retried when its lease runs out');
      return;
    }
    if (stopping()) await releaseJob(orm, job.uuid);
  };
}

/** Background jobs (the `jobs` table) as a kind of the queue: one task per job kind, one job at a time per process. */
export function jobWork(orm: Orm, runners: Record<string, JobRunner>, logger: Logger): QueueKind {
  const tasks: TaskList = Object.fromEntries(Object.entries(runners).map(([kind, runner]) => [kind, jobTask(orm, runner, logger)]));
  return { tasks, concurrency: 1 };
}
