import { run, type Runner, type Task, type TaskList } from 'graphile-worker';
import type { Logger } from '../logger.js';
import { queueLogger } from './queue-logger.js';
import { createQueuePool } from './queue-pool.js';
import { refetchAfterMiss } from './refetch-after-miss.js';
import { QUEUE_SCHEMA } from './queue-schema.js';

/** Work that runs every `everyMs` (0: not in this process), once across every process sharing the database. */
export interface PeriodicWork {
  name: string;
  everyMs: number;
  /** Returns how many rows it handled; a non-zero count is logged. */
  work: () => Promise<number>;
}

/** One kind of job (e-mails, webhooks, batches): its tasks, and how many of its jobs this process runs at once. */
export interface QueueKind {
  tasks: TaskList;
  concurrency: number;
  /** Its jobs are in named queues (one at a time per queue): a fetch that missed one is repeated (refetch-after-miss.ts). */
  namedQueues?: boolean;
}

export interface JobQueueOptions {
  /** The app role's connection: the queue's schema is installed by the migration step. */
  databaseUrl: string;
  /**
   * The kinds this process runs (a process only takes jobs of tasks it knows). Each kind has slots of
   * its own, so webhook requests held open by a slow receiver never delay an e-mail or a batch.
   */
  kinds: QueueKind[];
  periodic: PeriodicWork[];
  /** Fallback poll; new jobs wake the workers at once (graphile-worker's LISTEN on commit). */
  pollMs: number;
  logger: Logger;
}

export interface RunningJobQueue {
  /** Finishes the jobs in progress and stops taking new ones. */
  stop(): Promise<void>;
}

/** Slots of the periodic work: the sweeps are short, one waiting for another is fine. */
const PERIODIC_CONCURRENCY = 2;
/** Wait before a runner that stopped on a database failure is started again. */
const RESTART_MS = 2_000;

interface Supervised {
  addJob: Runner['addJob'];
  stop(): Promise<void>;
}

/**
 * A runner that starts again after it stopped on a database failure (graphile-worker gives up on a
 * pool whose job could not be marked done, e.g. PostgreSQL restarting): the process keeps serving and
 * its queue resumes when the database is back; the jobs it held are freed by `leases.expired`.
 */
async function supervised(start: () => Promise<Runner>, logger: Logger): Promise<Supervised> {
  let runner = await start();
  let stopping = false;
  let retry: NodeJS.Timeout | undefined;
  const restart = () => {
    retry = undefined;
    if (stopping) return;
    void start().then(
      (next) => {
        runner = next;
        watch(next);
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'job queue: could not restart a runner; trying again');
        retry = setTimeout(restart, RESTART_MS);
      },
    );
  };
  const watch = (current: Runner) =>
    void current.promise.catch((error: unknown) => {
      if (stopping) return;
      logger.warn({ err: error }, 'job queue: a runner stopped on a database failure; restarting it');
      retry = setTimeout(restart, RESTART_MS);
    });
  watch(runner);
  return {
    addJob: (...args) => runner.addJob(...args),
    async stop() {
      stopping = true;
      clearTimeout(retry);
      await runner.stop().catch(() => undefined);
    },
  };
}

/*
 * A periodic job reschedules itself when it ends: one job of its name exists (its job key), so the
 * work runs once per interval across every process, a slow run delays the next and never overlaps it.
 */
function periodicTask({ name, everyMs, work }: PeriodicWork, logger: Logger): Task {
  return async (_payload, helpers) => {
    try {
      const count = await work();
      if (count > 0) logger.info({ count }, name);
    } catch (error) {
      logger.error({ err: error }, `${name}: failed`);
    }
    await helpers.addJob(name, {}, { jobKey: name, runAt: new Date(Date.now() + everyMs) });
  };
}

/** Runs this process's share of the job queue (graphile-worker) until `stop()`: one runner per kind. */
export async function startJobQueue(options: JobQueueOptions): Promise<RunningJobQueue> {
  const periodic = options.periodic.filter(({ everyMs }) => everyMs > 0);
  const periodicKind: QueueKind = {
    tasks: Object.fromEntries(periodic.map((each) => [each.name, periodicTask(each, options.logger)])),
    concurrency: PERIODIC_CONCURRENCY,
  };
  const kinds = [periodicKind, ...options.kinds].filter(({ tasks }) => Object.keys(tasks).length > 0);
  if (kinds.length === 0) return { stop: async () => undefined };
  // Tasks use the service's own pool; the queue's connections only listen, claim and complete jobs
  // (a few per runner), and several processes share one PostgreSQL's connection slots.
  const max = kinds.length * 2 + 2;
  const pool = createQueuePool(options.databaseUrl, max, options.logger);
  const runners: Supervised[] = [];
  try {
    for (const { tasks, concurrency, namedQueues } of kinds) {
      const start = () =>
        run({
          pgPool: pool,
          schema: QUEUE_SCHEMA,
          concurrency,
          pollInterval: options.pollMs,
          noHandleSignals: true,
          // Stopping tells every task at once (helpers.abortSignal): a batch stops between chunks; an
          // e-mail or a webhook request finishes what it started (each bounded by its timeout).
          gracefulShutdownAbortTimeout: 0,
          // Completions in batches: a failure to record one stops the runner (supervised above) instead
          // of surfacing as an unhandled rejection.
          preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
          taskList: tasks,
          logger: queueLogger(options.logger),
          events: namedQueues ? refetchAfterMiss() : undefined,
        });
      runners.push(await supervised(start, options.logger));
    }
    // Starting runs each periodic work now (as a process start always did), then at its interval.
    for (const { name } of periodic) await runners[0].addJob(name, {}, { jobKey: name, jobKeyMode: 'replace' });
  } catch (error) {
    await Promise.all(runners.map((runner) => runner.stop()));
    await pool.end();
    throw error;
  }
  return {
    async stop() {
      await Promise.all(runners.map((runner) => runner.stop()));
      await pool.end();
    },
  };
}
