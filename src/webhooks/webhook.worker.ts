import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { OutboxLoop } from '../notifications/outbox-loop.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { postWebhook, type WebhookHttpLimits } from './webhook-http.js';
import { type ClaimedDelivery, WebhookQueue } from './webhook-queue.js';
import { signWebhook } from './webhook-signature.js';

const BATCH_SIZE = 10;

export interface WebhookWorkerOptions {
  queue: WebhookQueue;
  http: WebhookHttpLimits;
  logger: Logger;
  pollMs: number;
  leaseMs: number;
}

/**
 * Sends webhook deliveries at least once: claims due ones under a lease, POSTs each signed
 * (Standard Webhooks headers) outside any transaction, then records the attempt. A crash between
 * claim and record leaves the delivery pending, due again when its lease runs out; receivers drop
 * duplicates by `webhook-id`. The lease must outlast the HTTP timeout.
 */
export class WebhookWorker extends OutboxLoop {
  constructor(private readonly options: WebhookWorkerOptions) {
    super({ pollMs: options.pollMs, batchSize: BATCH_SIZE, logger: options.logger, name: 'webhook worker' });
  }

  /** One round: claim a batch and send it (to different records at once: order is per record). */
  async deliverDue(): Promise<number> {
    const { queue, leaseMs } = this.options;
    const batch = await queue.claim(BATCH_SIZE, leaseMs);
    if (this.stopping) {
      await queue.release(batch.map(({ uuid }) => uuid));
      return batch.length;
    }
    await Promise.all(batch.map((delivery) => this.deliver(delivery)));
    return batch.length;
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { queue, logger, http } = this.options;
    const context = { delivery: delivery.uuid, event: delivery.eventType, attempt: delivery.attemptCount + 1 };
    const started = Date.now();
    const timestamp = Math.floor(started / 1000);
    const headers = {
      'webhook-id': delivery.messageUuid,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(delivery.secret, delivery.messageUuid, timestamp, delivery.body),
    };
    let attempt: AttemptRecord;
    try {
      const response = await postWebhook(delivery.url, headers, delivery.body, http);
      const ok = response.status >= 200 && response.status < 300;
      attempt = { at: new Date(started).toISOString(), status: response.status, error: ok ? null : response.body || null, ms: Date.now() - started };
    } catch (error) {
      attempt = { at: new Date(started).toISOString(), status: null, error: error instanceof Error ? error.message : String(error), ms: Date.now() - started };
    }
    if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) {
      await queue.markDelivered(delivery.uuid, attempt);
      logger.info({ ...context, status: attempt.status }, 'webhook delivered');
      return;
    }
    const outcome = await queue.markFailed(delivery.uuid, attempt);
    logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, status: attempt.status, error: attempt.error, outcome }, 'webhook not delivered');
  }
}

/** The webhook worker as the service runs it (started and woken with the e-mail worker). */
export function startWebhookWorker(config: Config, orm: Orm, logger: Logger): WebhookWorker {
  const { allowPrivate, timeoutMs, maxAttempts, baseBackoffSeconds, maxBackoffSeconds } = config.webhooks;
  return new WebhookWorker({
    queue: new WebhookQueue(orm, { maxAttempts, baseBackoffSeconds, maxBackoffSeconds }),
    http: { allowPrivate, timeoutMs, maxResponseBytes: 4096 },
    logger,
    pollMs: config.notificationPollMs,
    // Past the HTTP timeout, so a live worker's delivery is never taken over mid-request.
    leaseMs: Math.max(config.notificationLeaseMs, timeoutMs * 2),
  });
}
