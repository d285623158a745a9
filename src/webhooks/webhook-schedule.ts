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
 * at most ENDPOINT_BACKLOG pending deliveries, else WAITING_FOR_TENANT_PRIORITY. A burst of one tenant's
 * deliveries (thousands at once, never looked at) is then fetched after another tenant's newer one,
 * except the first ENDPOINT_BACKLOG of each endpoint. Counts at most ENDPOINT_BACKLOG + 1 rows, through
 * the pending deliveries' endpoint index.
 */
export const backlogPriority = (row: string) =>
  `case when (select count(*) from (select 1 from webhook_deliveries p where p.endpoint_uuid = ${row}.endpoint_uuid and p.status = 'pending' limit ${ENDPOINT_BACKLOG + 1}) backlog) > ${ENDPOINT_BACKLOG} then ${WAITING_FOR_TENANT_PRIORITY} else 0 end`;

/**
 * The priority of a delivery whose tenant already had its share in flight when it came due: every
 * other tenant's due deliveries are fetched before it. Without it, the queue fetched due jobs oldest
 * first, so one tenant's thousands of deliveries were all fetched before another tenant's newer one.
 */
export const WAITING_FOR_TENANT_PRIORITY = 1;

// Claims of one tenant's deliveries, in every process, take turns with each other and with the wakes of
// finished ones: each counts the leases the earlier ones committed.
export const LOCK_TENANT = `select pg_advisory_xact_lock(hashtext('webhook_deliveries lease'), hashtext(tenant_uuid::text)) from webhook_deliveries where uuid = ?`;

/**
 * How long a parked delivery waits at most: a delivery that finds its tenant's share in flight is
 * parked (`PARK_FOR_TENANT`) and woken by the next of the tenant's deliveries to finish
 * (`WAKE_NEXT_FOR_TENANT`); this job is only the fallback should no wake come. Before parking, each such
 * delivery looked again after 1, 2, 4 and 8 s: with one tenant's 2,000 deliveries behind dead endpoints
 * that was a claim every few milliseconds, 15–22 % of the event loop for as long as the backlog lasted
 * (docs/benchmarks.md, Neighbours).
 */
export const PARKED_FALLBACK_SECONDS = 300;

/** The parked deliveries of a tenant, longest parked first: what `WAKE_NEXT_FOR_TENANT` reads. */
export const PARKED_INDEX = `create index "webhook_deliveries_parked_index" on "webhook_deliveries" ("tenant_uuid", "parked_at", "uuid") where "status" = 'pending' and "parked_at" is not null`;

/**
 * Parks the delivery `?`: marks it waiting for its tenant and schedules its fallback job, behind every
 * other tenant's due deliveries. Its next attempt stays as it is (it is due; it waits for its tenant's
 * turn, not for a retry). Run under the tenant's claim lock.
 */
export const PARK_FOR_TENANT = `with parked as (
    update webhook_deliveries set parked_at = coalesce(parked_at, now()) where uuid = ? returning uuid, endpoint_uuid)
  select ${scheduleDelivery('parked', { runAt: `now() + make_interval(secs => ${PARKED_FALLBACK_SECONDS})`, priority: String(WAITING_FOR_TENANT_PRIORITY) })}
  from parked`;

/**
 * Once the delivery `?` has given back its place in its tenant's share (delivered, failed, or waiting for
 * a retry), the tenant's longest-parked delivery is scheduled now. Run under the tenant's claim lock in
 * the transaction that gives the place back, so a delivery parks either before this sees it or after the
 * place is free, never in between.
 */
export const WAKE_NEXT_FOR_TENANT = `with next as (
    select d.uuid from webhook_deliveries d
    where d.tenant_uuid = (select tenant_uuid from webhook_deliveries where uuid = ?) and d.status = 'pending' and d.parked_at is not null
    order by d.parked_at, d.uuid
    limit 1
  ), woken as (
    update webhook_deliveries w set parked_at = null from next where w.uuid = next.uuid returning w.uuid, w.endpoint_uuid)
  select ${scheduleDelivery('woken', { runAt: 'now()' })} from woken`;

/**
 * Once the delivery `?` is final (delivered, or given up), the next pending one about the same record
 * to the same endpoint gets its job: it was skipped while this one was pending (a record's events
 * arrive in commit order). Run in the transaction that makes it final.
 */
export const SCHEDULE_NEXT_ABOUT_SUBJECT = `select ${scheduleDelivery('next')} from (
    select d.uuid, d.endpoint_uuid, d.next_attempt_at
    from webhook_deliveries d join webhook_deliveries done on done.uuid = ?
    where d.endpoint_uuid = done.endpoint_uuid and d.subject_uuid = done.subject_uuid and d.status = 'pending' and d.locked_until is null
    order by d.enqueued_at, d.uuid
    limit 1
  ) next`;
