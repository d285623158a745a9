import type { Orm } from '../db/orm.js';
import { uuidv7 } from '../db/uuid.js';
import { RECORD_FAILED_ATTEMPT, retryParameters, type RetryPolicy } from '../queue/retry-policy.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { endpointDisabledNotice } from './webhook-disabled-notice.js';
import { LOCK_TENANT, SCHEDULE_NEXT_ABOUT_SUBJECT, WAKE_NEXT_FOR_TENANT } from './webhook-schedule.js';

export interface DisablingPolicy {
  /** An endpoint whose every attempt failed for this long is disabled (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterHours: number;
  /** Who is told when the tenant has no contact e-mail (WEBHOOK_NOTICE_EMAIL); nobody when unset. */
  noticeEmail?: string;
}

export interface FailureOutcome {
  delivery: 'retrying' | 'failed';
  /** Set when this failure disabled the endpoint: who was e-mailed (null: nobody to tell). */
  disabled?: { endpointUuid: string; notified: string | null };
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

const QUEUE_NOTICE = `insert into notifications (uuid, created_at, updated_at, tenant_uuid, kind, recipient_email, recipient_name, subject, text_body, reference_uuid)
  select ?, now(), now(), t.uuid, 'webhook.endpoint_disabled', coalesce(t.contact_email, ?), t.name, ?, ?, ?
  from tenants t where t.uuid = ? and coalesce(t.contact_email, ?) is not null
  returning recipient_email`;

interface FailedRow {
  status: string;
  uuid: string | null;
  tenant_uuid: string;
  url: string;
  disabled_reason: string;
  disabled_now: boolean | null;
}

/** Records a failed attempt, and disables a long-failing endpoint with a notice, in one transaction. */
export function recordFailure(orm: Orm, uuid: string, attempt: AttemptRecord, retry: RetryPolicy, disabling: DisablingPolicy): Promise<FailureOutcome> {
  const hours = disabling.disableAfterHours;
  const last = attempt.status === null ? attempt.error : `HTTP ${attempt.status}`;
  return orm.em.fork().transactional(async (em) => {
    await em.execute(LOCK_TENANT, [uuid]);
    const [row] = await em.execute<FailedRow[]>(RECORD_FAILURE, [
      ...[attempt.status, attempt.error, JSON.stringify([attempt]), ...retryParameters(retry), uuid],
      ...[hours, hours, hours, last],
    ]);
    const delivery = row?.status === 'failed' ? 'failed' : 'retrying';
    if (delivery === 'failed') await em.execute(SCHEDULE_NEXT_ABOUT_SUBJECT, [uuid]);
    await em.execute(WAKE_NEXT_FOR_TENANT, [uuid]);
    if (!row?.disabled_now || !row.uuid) return { delivery };
    const notice = endpointDisabledNotice({ endpointUuid: row.uuid, url: row.url, reason: row.disabled_reason });
    const fallback = disabling.noticeEmail ?? null;
    const queued = await em.execute<{ recipient_email: string }[]>(QUEUE_NOTICE, [
      ...[uuidv7(), fallback, notice.subject, notice.text, row.uuid],
      ...[row.tenant_uuid, fallback],
    ]);
    return { delivery, disabled: { endpointUuid: row.uuid, notified: queued[0]?.recipient_email ?? null } };
  });
}
