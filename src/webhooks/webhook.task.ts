import type { Task } from 'graphile-worker';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { QueueKind } from '../queue/job-queue.js';
import type { RetryPolicy } from '../queue/retry-policy.js';
import type { KeyWrapper } from '../security/key-envelope.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { type DisablingPolicy, recordFailure } from './webhook-failure.js';
import { postWebhook, type WebhookHttpLimits } from './webhook-http.js';
import { LOCK_TENANT, PARK_FOR_TENANT, SCHEDULE_NEXT_ABOUT_SUBJECT, WAKE_NEXT_FOR_TENANT, WAKE_STRANDED, WEBHOOK_TASK } from './webhook-schedule.js';
import { openWebhookSecret } from './webhook-secrets.js';
import { signWebhook } from './webhook-signature.js';

/** A delivery leased for sending, with what sending it needs. */
interface ClaimedDelivery {
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

const MAX_ERROR_LENGTH = 500;

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

const LEASE = `update webhook_deliveries set locked_until = now() + make_interval(secs => ?), parked_at = null where uuid = ?`;

// Final for the delivery; a success also ends its endpoint's failing streak.
const DELIVERED = `with delivered as (
    update webhook_deliveries
    set status = 'delivered', delivered_at = now(), attempt_count = attempt_count + 1, last_response_status = ?, last_error = null,
        attempt_log = attempt_log || ?::jsonb, locked_until = null, updated_at = now()
    where uuid = ? and status = 'pending'
    returning endpoint_uuid)
  update webhook_endpoints e set failing_since = null from delivered where e.uuid = delivered.endpoint_uuid and e.failing_since is not null`;

export interface WebhookTaskOptions {
  orm: Orm;
  /** Opens the endpoints' sealed signing secrets. */
  wrapper: KeyWrapper;
  http: WebhookHttpLimits;
  retry: RetryPolicy;
  disabling: DisablingPolicy;
  /** Deliveries in flight for one tenant at most, across every process (WEBHOOK_TENANT_CONCURRENCY). */
  tenantConcurrency: number;
  /** How long one attempt holds its delivery; past the HTTP timeout, so a live worker is never taken over. */
  leaseMs: number;
  logger: Logger;
}

/** Leases the delivery if it may be sent now; at the tenant's limit, parks it until one of the tenant's deliveries finishes. */
function claim(options: WebhookTaskOptions, uuid: string): Promise<ClaimedDelivery | undefined> {
  return options.orm.em.fork().transactional(async (em) => {
    await em.execute(LOCK_TENANT, [uuid]);
    const [delivery] = await em.execute<ClaimedDelivery[]>(SENDABLE, [uuid]);
    if (!delivery) {
      // Sent, given up, not due, endpoint disabled, or waiting for an earlier one: if it was woken to take
      // a freed place in its tenant's share, the next parked delivery takes it instead.
      await em.execute(WAKE_NEXT_FOR_TENANT, [uuid]);
      return undefined;
    }
    if (delivery.tenant_in_flight >= options.tenantConcurrency) {
      await em.execute(PARK_FOR_TENANT, [uuid]);
      return undefined;
    }
    await em.execute(LEASE, [options.leaseMs / 1000, uuid], 'run');
    return delivery;
  });
}

async function attempt(options: WebhookTaskOptions, delivery: ClaimedDelivery): Promise<AttemptRecord> {
  const secret = await openWebhookSecret(options.wrapper, delivery.endpoint_uuid, delivery.sealed_signing_secret);
  const started = Date.now();
  const timestamp = Math.floor(started / 1000);
  const headers = {
    'webhook-id': delivery.message_uuid,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, delivery.message_uuid, timestamp, delivery.body),
  };
  const at = new Date(started).toISOString();
  try {
    const response = await postWebhook(delivery.url, headers, delivery.body, options.http);
    const ok = response.status >= 200 && response.status < 300;
    return { at, status: response.status, error: ok ? null : response.body || null, ms: Date.now() - started };
  } catch (error) {
    return { at, status: null, error: error instanceof Error ? error.message : String(error), ms: Date.now() - started };
  }
}

/**
 * Sends one webhook delivery at least once: leases it, POSTs it signed (Standard Webhooks headers)
 * outside any transaction, then records the attempt. A crash between lease and record leaves the
 * delivery pending until the lease runs out (queue/expired-leases.ts); receivers drop duplicates by
 * `webhook-id`. A failure schedules the next attempt under the retry policy (the row's trigger).
 */
export function webhookTask(options: WebhookTaskOptions): Task {
  const { orm, logger } = options;
  return async (payload) => {
    const { uuid } = payload as { uuid: string };
    const delivery = await claim(options, uuid);
    if (!delivery) return;
    const context = { delivery: delivery.uuid, event: delivery.event_type, attempt: delivery.attempt_count + 1 };
    const result = await attempt(options, delivery);
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await orm.em.fork().transactional(async (em) => {
        await em.execute(LOCK_TENANT, [delivery.uuid]);
        await em.execute(DELIVERED, [result.status, JSON.stringify([result]), delivery.uuid], 'run');
        await em.execute(SCHEDULE_NEXT_ABOUT_SUBJECT, [delivery.uuid]);
        await em.execute(WAKE_NEXT_FOR_TENANT, [delivery.uuid]);
      });
      logger.info({ ...context, status: result.status }, 'webhook delivered');
      return;
    }
    const failure = { ...result, error: result.error?.slice(0, MAX_ERROR_LENGTH) ?? null };
    const { delivery: outcome, disabled } = await recordFailure(orm, delivery.uuid, failure, options.retry, options.disabling);
    logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, status: result.status, error: result.error, outcome }, 'webhook not delivered');
    if (disabled) {
      const notice = disabled.notified ? { notified: disabled.notified } : { notified: null, why: 'no tenant contact e-mail nor WEBHOOK_NOTICE_EMAIL' };
      logger.error({ endpoint: disabled.endpointUuid, ...notice }, 'webhook endpoint disabled after failing continuously');
    }
  };
}

/** Parked deliveries whose wake was missed get their job (`WAKE_STRANDED`); returns how many. */
export async function wakeStrandedDeliveries(orm: Orm, tenantConcurrency: number): Promise<number> {
  return (await orm.em.fork().execute(WAKE_STRANDED, [tenantConcurrency])).length;
}

/** The webhook kind as a process runs it: WEBHOOK_CONCURRENCY deliveries at once, configured from `config.webhooks`. */
export function webhookWork(config: Config, orm: Orm, logger: Logger, wrapper: KeyWrapper): QueueKind {
  const { allowPrivate, timeoutMs, maxAttempts, baseBackoffSeconds, maxBackoffSeconds } = config.webhooks;
  const { concurrency, tenantConcurrency, disableAfterHours, noticeEmail } = config.webhooks;
  const task = webhookTask({
    orm,
    wrapper,
    http: { allowPrivate, timeoutMs, maxResponseBytes: 4096 },
    retry: { maxAttempts, baseBackoffSeconds, maxBackoffSeconds },
    disabling: { disableAfterHours, noticeEmail },
    tenantConcurrency,
    leaseMs: Math.max(config.notificationLeaseMs, timeoutMs * 2),
    logger,
  });
  return { tasks: { [WEBHOOK_TASK]: task }, concurrency, namedQueues: true };
}
