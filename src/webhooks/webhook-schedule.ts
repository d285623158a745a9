/** The queue's task name for webhook deliveries. */
export const WEBHOOK_TASK = 'webhook';

/**
 * The SQL call that (re)schedules the job of the delivery row `row` for its next attempt: one job per
 * delivery (its job key), in the named queue of its endpoint, so an endpoint gets one request at a time
 * and a dead endpoint holds only its own queue. Used by the deliveries' and the endpoints' triggers
 * and when a delivery frees the next one about its record, at the queue's default priority (0);
 * `later` reschedules it at another time and priority (SQL).
 */
export const scheduleDelivery = (row: string, later?: { runAt: string; priority: number; waits: string }) =>
  `graphile_worker.add_job('${WEBHOOK_TASK}', json_build_object('uuid', ${row}.uuid${later ? `, 'waits', ${later.waits}` : ''}), queue_name := 'webhook:' || ${row}.endpoint_uuid, run_at := ${later?.runAt ?? `${row}.next_attempt_at`}, job_key := 'webhook:' || ${row}.uuid${later ? `, priority := ${later.priority}` : ''})`;

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
export const WAIT_FOR_TENANT = `select ${scheduleDelivery('d', { runAt: 'now() + make_interval(secs => ?)', priority: WAITING_FOR_TENANT_PRIORITY, waits: '?::int' })}
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
