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
import { openWebhookSecret } from './webhook-secrets.js';
import { signWebhook } from './webhook-signature.js';
import {
  type ClaimedDelivery,
  findSendableDelivery,
  leaseDelivery,
  lockTenantOfDelivery,
  markDelivered,
  parkForTenant,
  wakeNextForTenant,
  WEBHOOK_TASK,
} from './webhook.repository.js';

const MAX_ERROR_LENGTH = 500;

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
    await lockTenantOfDelivery(em, uuid);
    const delivery = await findSendableDelivery(em, uuid);
    if (!delivery) {
      // Sent, given up, not due, endpoint disabled, or waiting for an earlier one: if it was woken to take
      // a freed place in its tenant's share, the next parked delivery takes it instead.
      await wakeNextForTenant(em, uuid);
      return undefined;
    }
    if (delivery.tenant_in_flight >= options.tenantConcurrency) {
      await parkForTenant(em, uuid);
      return undefined;
    }
    await leaseDelivery(em, uuid, options.leaseMs / 1000);
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
 * delivery pending until the lease runs out (queue/queue.repository.ts); receivers drop duplicates by
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
      await markDelivered(orm, delivery.uuid, result);
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
