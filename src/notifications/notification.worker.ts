import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { DeliveryQueue, type ClaimedNotification } from './delivery-queue.js';
import { createMailer, type Mailer } from './mailer.js';
import { listenForOutbox, type OutboxSignal } from './outbox-signal.js';

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
 * due again when its lease runs out. Wakes on `wake()` and polls every `pollMs` as a safety net.
 */
export class NotificationWorker {
  private stopping = false;
  private loop?: Promise<void>;
  private woken = false;
  private interruptSleep?: () => void;

  constructor(private readonly options: NotificationWorkerOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Look for due notifications now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.interruptSleep?.();
  }

  /** Finishes the message being sent, hands back the rest of the batch, and stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
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

  private async run(): Promise<void> {
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await this.deliverDue();
      } catch (error) {
        this.options.logger.error({ err: error }, 'notification worker round failed; retrying at the next poll');
      }
      // A full batch suggests more are due: go again without waiting.
      if (claimed < BATCH_SIZE) await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.interruptSleep = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.interruptSleep = done;
    });
  }
}

export interface RunningNotificationWorker {
  stop(): Promise<void>;
}

/** The worker as the service runs it: SMTP or `.eml` mailer from config, woken by the database on commit. */
export function startNotificationWorker(config: Config, orm: Orm, databaseUrl: string, logger: Logger): RunningNotificationWorker {
  const mailer = createMailer(config, logger);
  const worker = new NotificationWorker({
    queue: new DeliveryQueue(orm),
    mailer,
    logger,
    pollMs: config.notificationPollMs,
    leaseMs: config.notificationLeaseMs,
  });
  const signal: OutboxSignal = listenForOutbox(databaseUrl, () => worker.wake(), logger);
  worker.start();
  return {
    async stop() {
      await signal.close();
      await worker.stop();
      mailer.close();
    },
  };
}
