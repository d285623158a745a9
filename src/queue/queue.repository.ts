import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { QUEUE_SCHEMA } from './queue-schema.js';

/**
 * The rows a task leases while it works on them (`locked_until`), with the job key its job carries
 * (`<prefix>:<uuid>`) and which rows are still to be done. Giving a lease back (`locked_until = null`)
 * is what each table's trigger answers by adding the row's job again.
 */
const LEASED_ROWS = [
  { table: 'notifications', jobKeyPrefix: 'email', open: `status = 'pending'` },
  { table: 'webhook_deliveries', jobKeyPrefix: 'webhook', open: `status = 'pending'` },
  { table: 'jobs', jobKeyPrefix: 'job', open: `status <> 'completed' and deleted_at is null` },
];

const expired = ({ open }: (typeof LEASED_ROWS)[number]) => `${open} and locked_until < now()`;

/*
 * A lease outlasts the work it covers (an e-mail, an HTTP request with its timeout, a chunk of a batch),
 * so a job still locked while its row's lease ran out belongs to a worker that died: graphile-worker
 * would keep that job and its named queue (a webhook endpoint's) locked for 4 hours. They are unlocked
 * now, and the leases given back.
 */
const UNLOCK_DEAD_WORKERS = `select ${QUEUE_SCHEMA}.force_unlock_workers(array_agg(distinct j.locked_by))
  from ${QUEUE_SCHEMA}.jobs j
  where j.locked_by is not null and j.key in (${LEASED_ROWS.map((rows) => `select '${rows.jobKeyPrefix}:' || uuid from ${rows.table} where ${expired(rows)}`).join(' union all ')})`;

/** Work whose worker died mid-way becomes due again; returns how many rows were given back. */
export function releaseExpiredLeases(orm: Orm): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    await em.execute(UNLOCK_DEAD_WORKERS);
    let released = 0;
    for (const rows of LEASED_ROWS) {
      const result = await em.execute(`update ${rows.table} set locked_until = null where ${expired(rows)}`, [], 'run');
      released += (result as { affectedRows?: number }).affectedRows ?? 0;
    }
    return released;
  });
}

/*
 * The job queue by task: a job given up (attempts used up, not running) is a failure; the rest is the
 * depth (waiting, scheduled or running); the age is how long the oldest due job has waited past its run_at.
 */
const QUEUE_BY_TASK = `select task_identifier as task,
  count(*) filter (where attempts >= max_attempts and locked_at is null)::int as failed,
  count(*) filter (where attempts < max_attempts or locked_at is not null)::int as depth,
  coalesce(extract(epoch from now() - min(run_at) filter (where attempts < max_attempts and locked_at is null and run_at <= now())), 0)::float8 as oldest_seconds
  from ${QUEUE_SCHEMA}.jobs group by task_identifier`;

export interface TaskQueueCounts {
  task: string;
  failed: number;
  depth: number;
  oldest_seconds: number;
}

/** The jobs of every task, all processes: given up, waiting or running, and the oldest due one's wait. */
export function queueCountsByTask(em: EntityManager): Promise<TaskQueueCounts[]> {
  return em.getConnection().execute<TaskQueueCounts[]>(QUEUE_BY_TASK);
}
