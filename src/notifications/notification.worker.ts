import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { DeliveryQueue, type ClaimedNotification } from './delivery-queue.js';
import { createMailer, type Mailer } from './mailer.js';
import { OutboxLoop } from './outbox-loop.js';
import { listenForOutbox, type OutboxSignal } from './outbox-signal.js';
import { startWebhookWorker } from '../webhooks/webhook.worker.js';
import type { KeyWrapper } from '../security/key-envelope.js';

const BATCH_SIZE = 10;

export interface NotificationWorkerOptions {
  queue: DeliveryQueue;
  mailer: Mailer;
  logger: Logger;
  pollMs: number;
  leaseMs: number;
}

/**
 * Sends queued notifications at least once: claims due rows under a lease, sends each outside any
 * transaction, then records the outcome. A crash between claim and record leaves the row pending,
 * due again when its lease runs out. Wakes on `wake()` and polls every `pollMs` as a safety net (OutboxLoop).
 */
export class NotificationWorker extends OutboxLoop {
  constructor(private readonly options: NotificationWorkerOptions) {
    super({ pollMs: options.pollMs, batchSize: BATCH_SIZE, logger: options.logger, name: 'notification worker' });
  }

  /** One round: claim a batch and send it. Returns how many notifications were claimed. */
  async deliverDue(): Promise<number> {
    const { queue, leaseMs } = this.options;
    const batch = await queue.claim(BATCH_SIZE, leaseMs);
    for (const [index, notification] of batch.entries()) {
      if (this.stopping) {
        await queue.release(batch.slice(index).map(({ uuid }) => uuid));
        break;
      }
      await this.deliver(notification);
    }
    return batch.length;
  }

  private async deliver(notification: ClaimedNotification): Promise<void> {
    const { queue, mailer, logger } = this.options;
    const context = { notification: notification.uuid, kind: notification.kind, attempt: notification.attempts + 1 };
    try {
      await mailer.send({
        id: notification.uuid,
        to: { name: notification.recipientName, address: notification.recipientEmail },
        subject: notification.subject,
        text: notification.textBody,
        html: notification.htmlBody,
      });
    } catch (error) {
      const outcome = await queue.markFailed(notification.uuid, error instanceof Error ? error.message : String(error));
      logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, err: error, outcome }, 'notification not delivered');
      return;
    }
    await queue.markDelivered(notification.uuid);
    logger.info(context, 'notification delivered');
  }
}

export interface RunningNotificationWorker {
  stop(): Promise<void>;
}

/**
 * The outbox workers as the service runs them: e-mails (SMTP or `.eml` mailer from config) and
 * webhook deliveries (signed with secrets `wrapper` opens), both woken by the database on commit over one listening connection.
 */
export function startNotificationWorker(config: Config, orm: Orm, databaseUrl: string, logger: Logger, wrapper: KeyWrapper): RunningNotificationWorker {
  const mailer = createMailer(config, logger);
  const worker = new NotificationWorker({
    queue: new DeliveryQueue(orm),
    mailer,
    logger,
    pollMs: config.notificationPollMs,
    leaseMs: config.notificationLeaseMs,
  });
  const webhooks = startWebhookWorker(config, orm, logger, wrapper);
  const signal: OutboxSignal = listenForOutbox(
    databaseUrl,
    () => {
      worker.wake();
      webhooks.wake();
    },
    logger,
  );
  worker.start();
  webhooks.start();
  return {
    async stop() {
      await signal.close();
      await Promise.all([worker.stop(), webhooks.stop()]);
      mailer.close();
    },
  };
}
