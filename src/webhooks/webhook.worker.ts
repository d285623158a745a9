import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { OutboxLoop } from '../notifications/outbox-loop.js';
import { listenForOutbox, type OutboxSignal } from '../notifications/outbox-signal.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { postWebhook, type WebhookHttpLimits } from './webhook-http.js';
import { type ClaimedDelivery, WebhookQueue } from './webhook-queue.js';
import { signWebhook } from './webhook-signature.js';
import { openWebhookSecret } from './webhook-secrets.js';
import type { KeyWrapper } from '../security/key-envelope.js';

export interface WebhookWorkerOptions {
  queue: WebhookQueue;
  /** Deliveries this process has in flight at most (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Opens the endpoints' sealed signing secrets. */
  wrapper: KeyWrapper;
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
 *
 * Deliveries run independently in up to `concurrency` slots: each one that ends frees its slot and
 * wakes the loop, which claims into the free slots (the queue picks fairly across endpoints and
 * tenants). Nothing waits for a batch, so a slow endpoint holds only the slots it occupies.
 */
export class WebhookWorker extends OutboxLoop {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: WebhookWorkerOptions) {
    // batchSize 1: a round that claimed anything looks again at once (more may fit the free slots).
    super({ pollMs: options.pollMs, batchSize: 1, logger: options.logger, name: 'webhook worker' });
  }

  /** One round: claim into the free slots and start each delivery. Returns how many were claimed. */
  async deliverDue(): Promise<number> {
    const { queue, leaseMs, concurrency, logger } = this.options;
    const free = concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await queue.claim(free, leaseMs);
    if (this.stopping) {
      await queue.release(claimed.map(({ uuid }) => uuid));
      return claimed.length;
    }
    for (const delivery of claimed) {
      const sending: Promise<void> = this.deliver(delivery)
        .catch((error: unknown) => logger.error({ err: error, delivery: delivery.uuid }, 'webhook attempt not recorded; due again when its lease runs out'))
        .finally(() => {
          this.inFlight.delete(sending);
          this.wake();
        });
      this.inFlight.add(sending);
    }
    return claimed.length;
  }

  /** Stops claiming and waits for the deliveries in flight (each bounded by the HTTP timeout). */
  override async stop(): Promise<void> {
    await super.stop();
    await Promise.all(this.inFlight);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { queue, logger, http, wrapper } = this.options;
    const context = { delivery: delivery.uuid, event: delivery.eventType, attempt: delivery.attemptCount + 1 };
    const secret = await openWebhookSecret(wrapper, delivery.endpointUuid, delivery.sealedSecret);
    const started = Date.now();
    const timestamp = Math.floor(started / 1000);
    const headers = {
      'webhook-id': delivery.messageUuid,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, delivery.messageUuid, timestamp, delivery.body),
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
    const { delivery: outcome, disabled } = await queue.markFailed(delivery.uuid, attempt);
    logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, status: attempt.status, error: attempt.error, outcome }, 'webhook not delivered');
    if (disabled) {
      const notice = disabled.notified ? { notified: disabled.notified } : { notified: null, why: 'no tenant contact e-mail nor WEBHOOK_NOTICE_EMAIL' };
      logger.error({ endpoint: disabled.endpointUuid, ...notice }, 'webhook endpoint disabled after failing continuously');
    }
  }
}

export interface RunningWebhookWorker {
  stop(): Promise<void>;
}

/** The webhook worker as the service runs it: woken by the database whenever a delivery is queued. */
export function runWebhookWorker(config: Config, orm: Orm, databaseUrl: string, logger: Logger, wrapper: KeyWrapper): RunningWebhookWorker {
  const worker = startWebhookWorker(config, orm, logger, wrapper);
  const signal: OutboxSignal = listenForOutbox(databaseUrl, () => worker.wake(), logger);
  worker.start();
  return {
    async stop() {
      await signal.close();
      await worker.stop();
    },
  };
}

function startWebhookWorker(config: Config, orm: Orm, logger: Logger, wrapper: KeyWrapper): WebhookWorker {
  const { allowPrivate, timeoutMs, maxAttempts, baseBackoffSeconds, maxBackoffSeconds } = config.webhooks;
  const { concurrency, endpointConcurrency, tenantConcurrency, disableAfterHours, noticeEmail } = config.webhooks;
  return new WebhookWorker({
    queue: new WebhookQueue(
      orm,
      { maxAttempts, baseBackoffSeconds, maxBackoffSeconds },
      { endpointConcurrency, tenantConcurrency },
      { disableAfterHours, noticeEmail },
    ),
    concurrency,
    wrapper,
    http: { allowPrivate, timeoutMs, maxResponseBytes: 4096 },
    logger,
    pollMs: config.notificationPollMs,
    // Past the HTTP timeout, so a live worker's delivery is never taken over mid-request.
    leaseMs: Math.max(config.notificationLeaseMs, timeoutMs * 2),
  });
}
