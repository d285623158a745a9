import type { Orm } from '../db/orm.js';
import type { RetryPolicy } from '../queue/retry-policy.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { endpointDisabledNotice } from './webhook-disabled-notice.js';
import { lockTenantOfDelivery, queueDisabledNotice, recordFailedAttempt, scheduleNextAboutSubject, wakeNextForTenant } from './webhook.repository.js';

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

/** Records a failed attempt, and disables a long-failing endpoint with a notice, in one transaction. */
export function recordFailure(orm: Orm, uuid: string, attempt: AttemptRecord, retry: RetryPolicy, disabling: DisablingPolicy): Promise<FailureOutcome> {
  return orm.em.fork().transactional(async (em) => {
    await lockTenantOfDelivery(em, uuid);
    const row = await recordFailedAttempt(em, uuid, attempt, retry, disabling.disableAfterHours);
    const delivery = row?.status === 'failed' ? 'failed' : 'retrying';
    if (delivery === 'failed') await scheduleNextAboutSubject(em, uuid);
    await wakeNextForTenant(em, uuid);
    if (!row?.disabled_now || !row.uuid) return { delivery };
    const notice = endpointDisabledNotice({ endpointUuid: row.uuid, url: row.url, reason: row.disabled_reason });
    const notified = await queueDisabledNotice(em, { uuid: row.uuid, tenantUuid: row.tenant_uuid }, notice, disabling.noticeEmail ?? null);
    return { delivery, disabled: { endpointUuid: row.uuid, notified } };
  });
}
