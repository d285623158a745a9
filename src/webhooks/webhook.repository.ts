import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { uuidv7 } from '../db/uuid.js';
import { RECORD_FAILED_ATTEMPT, retryParameters, type RetryPolicy } from '../queue/retry-policy.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { webhookBody, type WebhookEvent } from './webhook-events.js';

// Every statement on the webhook tables (messages, deliveries, endpoints, unsealed secrets), and the SQL
// their triggers schedule deliveries with.

/** The queue's task name for webhook deliveries. */
export const WEBHOOK_TASK = 'webhook';

/**
 * The SQL call that (re)schedules the job of the delivery row `row` for its next attempt: one job per
 * delivery (its job key), in the named queue of its endpoint, so an endpoint gets one request at a time
 * and a dead endpoint holds only its own queue. Used by the deliveries' and the endpoints' triggers
 * and when a delivery frees the next one about its record, at the queue's default priority (0)
 * unless `options` say otherwise (SQL: its run time and priority).
 */
export const scheduleDelivery = (row: string, options: { runAt?: string; priority?: string } = {}) =>
  `graphile_worker.add_job('${WEBHOOK_TASK}', json_build_object('uuid', ${row}.uuid), queue_name := 'webhook:' || ${row}.endpoint_uuid, run_at := ${options.runAt ?? `${row}.next_attempt_at`}, job_key := 'webhook:' || ${row}.uuid${options.priority ? `, priority := ${options.priority}` : ''})`;

/** Pending deliveries an endpoint may have before the next ones wait behind other endpoints' (below). */
export const ENDPOINT_BACKLOG = 10;

/**
 * The priority of the delivery row `row` as its trigger schedules it: normal (0) while its endpoint has
 * at most ENDPOINT_BACKLOG pending deliveries, else BACKLOG_PRIORITY. A burst of one tenant's
 * deliveries (thousands at once, never looked at) is then fetched after another tenant's newer one,
 * except the first ENDPOINT_BACKLOG of each endpoint. Counts at most ENDPOINT_BACKLOG + 1 rows, through
 * the pending deliveries' endpoint index.
 */
export const backlogPriority = (row: string) =>
  `case when (select count(*) from (select 1 from webhook_deliveries p where p.endpoint_uuid = ${row}.endpoint_uuid and p.status = 'pending' limit ${ENDPOINT_BACKLOG + 1}) backlog) > ${ENDPOINT_BACKLOG} then ${BACKLOG_PRIORITY} else 0 end`;

/** The priority of a delivery behind its endpoint's backlog: every delivery at the normal priority (0) is fetched before it. */
export const BACKLOG_PRIORITY = 1;

// Claims of one tenant's deliveries, in every process, take turns with each other and with the wakes of
// finished ones: each counts the leases the earlier ones committed.
const LOCK_TENANT = `select pg_advisory_xact_lock(hashtext('webhook_deliveries lease'), hashtext(tenant_uuid::text)) from webhook_deliveries where uuid = ?`;

export async function lockTenantOfDelivery(em: EntityManager, deliveryUuid: string): Promise<void> {
  await em.execute(LOCK_TENANT, [deliveryUuid]);
}

/** The parked deliveries of a tenant, longest parked first: what `WAKE_NEXT_FOR_TENANT` reads. */
export const PARKED_INDEX = `create index "webhook_deliveries_parked_index" on "webhook_deliveries" ("tenant_uuid", "parked_at", "uuid") where "status" = 'pending' and "parked_at" is not null`;

/**
 * Parks the delivery `?`: marks it waiting for its tenant, with no job. It is due (it waits for its
 * tenant's turn, not for a retry). The next of the tenant's deliveries to give its place back wakes it
 * (`WAKE_NEXT_FOR_TENANT`); `WAKE_STRANDED` is the safety net. Run under the tenant's claim lock. Before
 * parking, each such delivery looked again after 1, 2, 4 and 8 s: with one tenant's 2,000 deliveries
 * behind dead endpoints that was a claim every few milliseconds, 15–22 % of the event loop for as long as
 * the backlog lasted (docs/benchmarks.md, Neighbours).
 */
const PARK_FOR_TENANT = `update webhook_deliveries set parked_at = coalesce(parked_at, now()) where uuid = ?`;

export async function parkForTenant(em: EntityManager, deliveryUuid: string): Promise<void> {
  await em.execute(PARK_FOR_TENANT, [deliveryUuid]);
}

/**
 * The body of the trigger that parks a new delivery at once when its tenant already has parked ones: it
 * would only be claimed to be parked behind them, and each job costs a notification that wakes every
 * runner's fetch. One tenant's burst then costs a row each, not a job, a claim and a park each.
 */
export const PARK_BEHIND_TENANT = `if new.status = 'pending' and new.parked_at is null and exists (
      select 1 from webhook_deliveries p where p.tenant_uuid = new.tenant_uuid and p.status = 'pending' and p.parked_at is not null) then
    new.parked_at := now();
  end if;
  return new;`;

/** The `limit` longest-parked deliveries of the tenant `tenant` (SQL expressions), through PARKED_INDEX. */
const longestParked = (tenant: string, limit: string) =>
  `select p.uuid from webhook_deliveries p where p.tenant_uuid = ${tenant} and p.status = 'pending' and p.parked_at is not null order by p.parked_at, p.uuid limit ${limit}`;

/** After a CTE `picked` (uuid): unparks those deliveries and schedules each now; the statement's rows are the jobs. */
const WAKE_PICKED = `woken as (
    update webhook_deliveries w set parked_at = null from picked where w.uuid = picked.uuid returning w.uuid, w.endpoint_uuid)
  select ${scheduleDelivery('woken', { runAt: 'now()' })} from woken`;

/**
 * Once the delivery `?` has given back its place in its tenant's share (delivered, failed, or waiting for
 * a retry), the tenant's longest-parked delivery is scheduled now. Run under the tenant's claim lock in
 * the transaction that gives the place back, so a delivery parks either before this sees it or after the
 * place is free, never in between.
 */
const WAKE_NEXT_FOR_TENANT = `with picked as (
    ${longestParked('(select tenant_uuid from webhook_deliveries where uuid = ?)', '1')}
  ), ${WAKE_PICKED}`;

export async function wakeNextForTenant(em: EntityManager, deliveryUuid: string): Promise<void> {
  await em.execute(WAKE_NEXT_FOR_TENANT, [deliveryUuid]);
}

/**
 * The first tenant after `after` (SQL; null: the first of all) with parked deliveries: one probe of
 * PARKED_INDEX, so listing those tenants costs a probe per tenant, not a read of every parked delivery.
 */
const PARKED_TENANT_AFTER = (after: string) =>
  `select d.tenant_uuid from webhook_deliveries d where d.status = 'pending' and d.parked_at is not null${after === 'null' ? '' : ` and d.tenant_uuid > ${after}`} order by d.tenant_uuid limit 1`;

/**
 * The safety net of parking: wakes, for each tenant with parked deliveries, as many as its share
 * (`?`, WEBHOOK_TENANT_CONCURRENCY) has places without a live lease, longest parked first. A wake can be
 * missed: a delivery parked at insert by a transaction that commits after the last of its tenant's
 * deliveries in flight looked for a parked one to wake, or a worker that died mid-attempt. A wake
 * that was not needed only costs a claim that parks again. Returns the deliveries woken.
 */
const WAKE_STRANDED = `with recursive parked(tenant_uuid) as (
    (${PARKED_TENANT_AFTER('null')})
    union all
    select (${PARKED_TENANT_AFTER('parked.tenant_uuid')}) from parked where parked.tenant_uuid is not null
  ), tenants as (
    select parked.tenant_uuid, (select count(*) from webhook_deliveries l where l.tenant_uuid = parked.tenant_uuid and l.status = 'pending' and l.locked_until >= now()) as in_flight
    from parked where parked.tenant_uuid is not null
  ), picked as (
    select d.uuid from tenants t cross join lateral (${longestParked('t.tenant_uuid', 'greatest(?::int - t.in_flight, 0)')}) d
  ), ${WAKE_PICKED}`;

/** Parked deliveries whose wake was missed get their job (`WAKE_STRANDED`); returns how many. */
export async function wakeStrandedDeliveries(orm: Orm, tenantConcurrency: number): Promise<number> {
  return (await orm.em.fork().execute(WAKE_STRANDED, [tenantConcurrency])).length;
}

/**
 * Once the delivery `?` is final (delivered, or given up), the next pending one about the same record
 * to the same endpoint gets its job: it was skipped while this one was pending (a record's events
 * arrive in commit order). Run in the transaction that makes it final.
 */
const SCHEDULE_NEXT_ABOUT_SUBJECT = `select ${scheduleDelivery('next')} from (
    select d.uuid, d.endpoint_uuid, d.next_attempt_at
    from webhook_deliveries d join webhook_deliveries done on done.uuid = ?
    where d.endpoint_uuid = done.endpoint_uuid and d.subject_uuid = done.subject_uuid and d.status = 'pending' and d.locked_until is null
    order by d.enqueued_at, d.uuid
    limit 1
  ) next`;

export async function scheduleNextAboutSubject(em: EntityManager, deliveryUuid: string): Promise<void> {
  await em.execute(SCHEDULE_NEXT_ABOUT_SUBJECT, [deliveryUuid]);
}

/** A delivery leased for sending, with what sending it needs. */
export interface ClaimedDelivery {
  uuid: string;
  message_uuid: string;
  event_type: string;
  attempt_count: number;
  body: string;
  url: string;
  endpoint_uuid: string;
  /** The endpoint's signing secret, sealed (webhook-secrets.ts opens it). */
  sealed_signing_secret: Buffer;
  tenant_in_flight: number;
}

/*
 * The delivery, if it may be sent now: pending, due, not leased, its endpoint enabled, and no earlier
 * delivery about the same record to the same endpoint pending (that one schedules this one once final).
 */
const SENDABLE = `select d.uuid, d.message_uuid, d.event_type, d.attempt_count, m.body, e.url, e.uuid as endpoint_uuid, e.sealed_signing_secret,
    (select count(*)::int from webhook_deliveries l where l.tenant_uuid = d.tenant_uuid and l.status = 'pending' and l.locked_until >= now()) as tenant_in_flight
  from webhook_deliveries d
  join webhook_endpoints e on e.uuid = d.endpoint_uuid
  join webhook_messages m on m.uuid = d.message_uuid
  where d.uuid = ? and d.status = 'pending' and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
    and e.disabled_at is null and e.deleted_at is null and e.sealed_signing_secret is not null
    and not exists (
      select 1 from webhook_deliveries earlier
      where earlier.endpoint_uuid = d.endpoint_uuid and earlier.subject_uuid = d.subject_uuid and earlier.status = 'pending'
        and (earlier.enqueued_at, earlier.uuid) < (d.enqueued_at, d.uuid))`;

export async function findSendableDelivery(em: EntityManager, deliveryUuid: string): Promise<ClaimedDelivery | undefined> {
  const [delivery] = await em.execute<ClaimedDelivery[]>(SENDABLE, [deliveryUuid]);
  return delivery;
}

const LEASE = `update webhook_deliveries set locked_until = now() + make_interval(secs => ?), parked_at = null where uuid = ?`;

export async function leaseDelivery(em: EntityManager, deliveryUuid: string, leaseSeconds: number): Promise<void> {
  await em.execute(LEASE, [leaseSeconds, deliveryUuid], 'run');
}

// Final for the delivery; a success also ends its endpoint's failing streak.
const DELIVERED = `with delivered as (
    update webhook_deliveries
    set status = 'delivered', delivered_at = now(), attempt_count = attempt_count + 1, last_response_status = ?, last_error = null,
        attempt_log = attempt_log || ?::jsonb, locked_until = null, updated_at = now()
    where uuid = ? and status = 'pending'
    returning endpoint_uuid)
  update webhook_endpoints e set failing_since = null from delivered where e.uuid = delivered.endpoint_uuid and e.failing_since is not null`;

/** Records the successful attempt and gives the delivery's places back (next about its record, its tenant's share), in one transaction. */
export function markDelivered(orm: Orm, deliveryUuid: string, attempt: AttemptRecord): Promise<void> {
  return orm.em.fork().transactional(async (em) => {
    await lockTenantOfDelivery(em, deliveryUuid);
    await em.execute(DELIVERED, [attempt.status, JSON.stringify([attempt]), deliveryUuid], 'run');
    await scheduleNextAboutSubject(em, deliveryUuid);
    await wakeNextForTenant(em, deliveryUuid);
  });
}

/*
 * The attempt is logged and the next one scheduled; the endpoint's failing streak starts at its
 * first failure after a success (markDelivered ends it). A streak as old as the policy disables the
 * endpoint: `disabled_now` is only true for the update that set disabled_at in this transaction.
 */
const RECORD_FAILURE = `with failed as (
    update webhook_deliveries
    set last_response_status = ?, last_error = ?, attempt_log = attempt_log || ?::jsonb,
        ${RECORD_FAILED_ATTEMPT('attempt_count', 'webhook_delivery_status')}
    where uuid = ? and status = 'pending'
    returning status, endpoint_uuid
  ), streak as (
    update webhook_endpoints e
    set failing_since = coalesce(e.failing_since, now()),
        disabled_at = case when e.disabled_at is null and e.failing_since <= now() - make_interval(hours => ?) then now() else e.disabled_at end,
        disabled_reason = case when e.disabled_at is null and e.failing_since <= now() - make_interval(hours => ?)
          then format('Disabled after failing every attempt for over %s hours (since %s); last: %s.', ?::int,
                      to_char(e.failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ?::text)
          else e.disabled_reason end
    from failed
    where e.uuid = failed.endpoint_uuid
    returning e.uuid, e.tenant_uuid, e.url, e.disabled_reason, e.disabled_at = now() as disabled_now
  )
  select failed.status, streak.* from failed left join streak on true`;

/** The delivery's status after a failed attempt, and its endpoint as the failing streak left it. */
export interface FailedAttempt {
  status: string;
  uuid: string | null;
  tenant_uuid: string;
  url: string;
  disabled_reason: string;
  disabled_now: boolean | null;
}

/** Records a failed attempt under `retry`, disabling the endpoint once it has failed for `disableAfterHours`. */
export async function recordFailedAttempt(
  em: EntityManager,
  deliveryUuid: string,
  attempt: AttemptRecord,
  retry: RetryPolicy,
  disableAfterHours: number,
): Promise<FailedAttempt | undefined> {
  const hours = disableAfterHours;
  const last = attempt.status === null ? attempt.error : `HTTP ${attempt.status}`;
  const [row] = await em.execute<FailedAttempt[]>(RECORD_FAILURE, [
    ...[attempt.status, attempt.error, JSON.stringify([attempt]), ...retryParameters(retry), deliveryUuid],
    ...[hours, hours, hours, last],
  ]);
  return row;
}

const QUEUE_NOTICE = `insert into notifications (uuid, created_at, updated_at, tenant_uuid, kind, recipient_email, recipient_name, subject, text_body, reference_uuid)
  select ?, now(), now(), t.uuid, 'webhook.endpoint_disabled', coalesce(t.contact_email, ?), t.name, ?, ?, ?
  from tenants t where t.uuid = ? and coalesce(t.contact_email, ?) is not null
  returning recipient_email`;

/** Queues the notice of a disabled endpoint to its tenant's contact e-mail, else to `fallbackEmail`; returns who gets it (null: nobody). */
export async function queueDisabledNotice(
  em: EntityManager,
  endpoint: { uuid: string; tenantUuid: string },
  notice: { subject: string; text: string },
  fallbackEmail: string | null,
): Promise<string | null> {
  const queued = await em.execute<{ recipient_email: string }[]>(QUEUE_NOTICE, [
    ...[uuidv7(), fallbackEmail, notice.subject, notice.text, endpoint.uuid],
    ...[endpoint.tenantUuid, fallbackEmail],
  ]);
  return queued[0]?.recipient_email ?? null;
}

// Concurrent creates of one tenant pass the count one at a time (FOR NO KEY UPDATE: foreign-key checks do not wait on it).
const LOCK_TENANT_ENDPOINTS = 'select 1 from tenants where uuid = ? for no key update';
const LIVE_ENDPOINTS = 'select count(*)::int as count from webhook_endpoints where tenant_uuid = ? and deleted_at is null';

export async function lockTenantEndpoints(em: EntityManager, tenantUuid: string): Promise<void> {
  await em.execute(LOCK_TENANT_ENDPOINTS, [tenantUuid]);
}

export async function countLiveEndpoints(em: EntityManager, tenantUuid: string): Promise<number> {
  const [{ count }] = await em.execute<{ count: number }[]>(LIVE_ENDPOINTS, [tenantUuid]);
  return count;
}

// Migration20261125213339_webhook_fairness moved the secrets stored in plain text into this table:
// SQL cannot seal them, since the key-encryption key never reaches the database.
const CLAIM_UNSEALED = 'delete from webhook_secrets_unsealed returning endpoint_uuid, signing_secret';
const RESTORE_SEALED = 'update webhook_endpoints set sealed_signing_secret = ? where uuid = ?';

/** Takes (deletes) the secrets stored before secrets were sealed, for the caller to seal in the same transaction. */
export function takeUnsealedSecrets(em: EntityManager): Promise<{ endpoint_uuid: string; signing_secret: string }[]> {
  return em.execute<{ endpoint_uuid: string; signing_secret: string }[]>(CLAIM_UNSEALED);
}

export async function storeSealedSecret(em: EntityManager, endpointUuid: string, sealed: Buffer): Promise<void> {
  await em.execute(RESTORE_SEALED, [sealed, endpointUuid]);
}

/**
 * The rows `enqueueWebhookEvents` writes, as one `insert` for a caller that folds it into a statement
 * of its own (a data-modifying CTE) instead of a flush: the upload's last statement, to save a round
 * trip. Same columns, same body, same fan-out trigger; `?` placeholders as `em.execute` takes them.
 */
export function webhookMessagesInsert(events: WebhookEvent[], tenantUuid: string): { sql: string; params: unknown[] } {
  const now = new Date();
  const at = now.toISOString();
  const rows = events.map(() => '(?, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?)').join(', ');
  const params = events.flatMap((event) => [uuidv7(), at, at, event.type, event.subjectUuid, webhookBody(event, now), tenantUuid]);
  return {
    sql: `insert into "webhook_messages" ("uuid", "created_at", "updated_at", "event_type", "subject_uuid", "body", "tenant_uuid") values ${rows}`,
    params,
  };
}
