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
export const LOCK_TENANT = `select pg_advisory_xact_lock(hashtext('webhook_deliveries lease'), hashtext(tenant_uuid::text)) from webhook_deliveries where uuid = ?`;

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
export const PARK_FOR_TENANT = `update webhook_deliveries set parked_at = coalesce(parked_at, now()) where uuid = ?`;

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
export const WAKE_NEXT_FOR_TENANT = `with picked as (
    ${longestParked('(select tenant_uuid from webhook_deliveries where uuid = ?)', '1')}
  ), ${WAKE_PICKED}`;

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
export const WAKE_STRANDED = `with recursive parked(tenant_uuid) as (
    (${PARKED_TENANT_AFTER('null')})
    union all
    select (${PARKED_TENANT_AFTER('parked.tenant_uuid')}) from parked where parked.tenant_uuid is not null
  ), tenants as (
    select parked.tenant_uuid, (select count(*) from webhook_deliveries l where l.tenant_uuid = parked.tenant_uuid and l.status = 'pending' and l.locked_until >= now()) as in_flight
    from parked where parked.tenant_uuid is not null
  ), picked as (
    select d.uuid from tenants t cross join lateral (${longestParked('t.tenant_uuid', 'greatest(?::int - t.in_flight, 0)')}) d
  ), ${WAKE_PICKED}`;

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
