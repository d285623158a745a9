import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { WebhookEvent } from '../webhooks/webhook-events.js';
import { webhookMessagesInsert } from '../webhooks/webhook.repository.js';
import type { StoredItemResult } from './job.views.js';

const PROGRESS = `update jobs
  set results = ?::jsonb, done = ?, failed = ?, locked_until = now() + make_interval(secs => ?), updated_at = now()
  where uuid = ? and tenant_uuid = ?`;

const COMPLETE = `update jobs set status = 'completed', finished_at = now(), locked_until = null, updated_at = now()
  where uuid = ? and tenant_uuid = ? and status <> 'completed'
  returning uuid, kind, total, done, failed, finished_at`;

/** A job as its completion returns it. */
export interface CompletedJob {
  uuid: string;
  kind: string;
  total: number;
  done: number;
  failed: number;
  finished_at: Date;
}

// The job, unless it is done or another worker holds it (a lease run out means its holder stopped or died).
const CLAIM = `update jobs j set status = 'running', locked_until = now() + make_interval(secs => ?), updated_at = now()
  from tenants t
  where j.uuid = ? and j.status <> 'completed' and j.deleted_at is null and (j.locked_until is null or j.locked_until < now()) and t.uuid = j.tenant_uuid
  returning j.uuid, j.kind, j.payload, j.results, j.client_id, t.uuid as tenant_uuid, t.identifier as tenant_identifier, t.name as tenant_name`;

// Its trigger schedules the job again, for another process (or this one after a restart).
const RELEASE = `update jobs set locked_until = null where uuid = ? and status <> 'completed'`;

/** A job as a worker leases it, with the tenant of the client that asked for it. */
export interface ClaimedJobRow {
  uuid: string;
  kind: string;
  payload: unknown;
  results: unknown[];
  client_id: string;
  tenant_uuid: string;
  tenant_identifier: string;
  tenant_name: string;
}

/** Saves the results so far (`failed` of them failed) and renews the lease for `leaseSeconds`. */
export async function saveJobProgress(
  em: EntityManager,
  uuid: string,
  tenantUuid: string,
  results: StoredItemResult[],
  failed: number,
  leaseSeconds: number,
): Promise<void> {
  await em.getConnection().execute(PROGRESS, [JSON.stringify(results), results.length - failed, failed, leaseSeconds, uuid, tenantUuid], 'run');
}

/** Marks the job completed and queues `finished`'s event in the same transaction (once: completing a completed job does nothing). */
export async function completeJob(em: EntityManager, uuid: string, tenantUuid: string, finished: (job: CompletedJob) => WebhookEvent): Promise<void> {
  const connection = em.getConnection();
  await connection.transactional(async (trx) => {
    const [job] = await connection.execute<CompletedJob[]>(COMPLETE, [uuid, tenantUuid], 'all', trx);
    if (!job) return;
    const insert = webhookMessagesInsert([finished(job)], tenantUuid);
    await connection.execute(insert.sql, insert.params, 'run', trx);
  });
}

/** Leases the job for `leaseSeconds` and marks it running, unless it is done or another worker holds it. */
export async function claimJob(orm: Orm, uuid: string, leaseSeconds: number): Promise<ClaimedJobRow | undefined> {
  const [row] = await orm.em.fork().execute<ClaimedJobRow[]>(CLAIM, [leaseSeconds, uuid]);
  return row;
}

export async function releaseJob(orm: Orm, uuid: string): Promise<void> {
  await orm.em.fork().execute(RELEASE, [uuid], 'run');
}
