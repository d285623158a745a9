/** The queue's task name for webhook deliveries. */
export const WEBHOOK_TASK = 'webhook';

/**
 * The SQL call that (re)schedules the job of the delivery row `row` for its next attempt: one job per
 * delivery (its job key), in the named queue of its endpoint, so an endpoint gets one request at a time
 * and a dead endpoint holds only its own queue. Used by the deliveries' and the endpoints' triggers
 * and when a delivery frees the next one about its record, at the queue's default priority (0)
 * unless `options` say otherwise (SQL: its run time, priority, and the times it was put back).
 */
export const scheduleDelivery = (row: string, options: { runAt?: string; priority?: string; waits?: string } = {}) =>
  `graphile_worker.add_job('${WEBHOOK_TASK}', json_build_object('uuid', ${row}.uuid${options.waits ? `, 'waits', ${options.waits}` : ''}), queue_name := 'webhook:' || ${row}.endpoint_uuid, run_at := ${options.runAt ?? `${row}.next_attempt_at`}, job_key := 'webhook:' || ${row}.uuid${options.priority ? `, priority := ${options.priority}` : ''})`;

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
 * first, so one tenant's thousands of deliveries (each looked at, found over its tenant's limit and
 * moved a second later, again and again) were all fetched before another tenant's newer one.
 */
export const WAITING_FOR_TENANT_PRIORITY = 1;

/**
 * Schedules the delivery (its uuid the third `?`) again, behind every other tenant's due deliveries:
 * the job carries how many times it was put back (the first `?`) and runs the second `?` seconds from
 * now. Its next attempt stays as it is (it is due; it waits for its tenant's turn, not for a retry).
 */
export const WAIT_FOR_TENANT = `select ${scheduleDelivery('d', { runAt: 'now() + make_interval(secs => ?)', priority: String(WAITING_FOR_TENANT_PRIORITY), waits: '?::int' })}
  from (select uuid, endpoint_uuid from webhook_deliveries where uuid = ?) d`;

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
