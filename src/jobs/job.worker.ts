import type { Principal } from '../auth/token.service.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
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

// The oldest job nobody holds: queued, or running with its holder's lease run out (a process that
// stopped or died). SKIP LOCKED lets any number of workers, in any number of processes, claim disjoint jobs.
const CLAIM = `
  with due as materialized (
    select uuid from jobs
    where status <> 'completed' and deleted_at is null and (locked_until is null or locked_until < now())
    order by created_at
    limit 1
    for update skip locked
  )
  update jobs j set status = 'running', locked_until = now() + make_interval(secs => ?), updated_at = now()
  from due, tenants t
  where j.uuid = due.uuid and t.uuid = j.tenant_uuid
  returning j.uuid, j.kind, j.payload, j.results, j.client_id, t.uuid as tenant_uuid, t.identifier as tenant_identifier, t.name as tenant_name`;

const RELEASE = `update jobs set locked_until = null where uuid = ? and status <> 'completed'`;

interface ClaimRow {
  uuid: string;
  kind: string;
  payload: unknown;
  results: unknown[];
  client_id: string;
  tenant_uuid: string;
  tenant_identifier: string;
  tenant_name: string;
}

export interface JobWorker {
  /** Finishes the chunk in progress, hands the job back and stops polling. */
  stop(): Promise<void>;
}

/** Polls for due jobs across tenants and runs them one at a time with the runner of their kind. */
export function startJobWorker(orm: Orm, runners: Record<string, JobRunner>, logger: Logger, pollMs: number): JobWorker {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const claim = async (): Promise<ClaimedJob | undefined> => {
    const [row] = await orm.em.fork().execute<ClaimRow[]>(CLAIM, [JOB_LEASE_SECONDS]);
    if (!row) return undefined;
    const tenant = { uuid: row.tenant_uuid, identifier: row.tenant_identifier, name: row.tenant_name };
    return { uuid: row.uuid, kind: row.kind, payload: row.payload, results: row.results, principal: { clientId: row.client_id, tenant } };
  };
  const runOne = async (): Promise<boolean> => {
    const job = await claim();
    if (!job) return false;
    const runner = runners[job.kind];
    try {
      if (!runner) throw new Error(`no runner for jobs of kind ${job.kind}`);
      await runner(job, () => stopping);
    } catch (error) {
      logger.error({ err: error, job: job.uuid }, 'job failed; it is retried when its lease runs out');
      return false;
    }
    if (stopping) await orm.em.fork().execute(RELEASE, [job.uuid], 'run');
    return true;
  };
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        while (!stopping && (await runOne()));
      } catch (error) {
        logger.error({ err: error }, 'job worker: claim failed');
      }
      if (!stopping) timer = setTimeout(tick, pollMs).unref();
    })();
  };
  tick();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
