import type { Task } from 'graphile-worker';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { QueueKind } from '../queue/job-queue.js';
import type { RetryPolicy } from '../queue/retry-policy.js';
import { createMailer, type Mailer } from './mailer.js';
import { leaseNotification, markNotificationDelivered, recordFailedSend } from './notification.repository.js';

/** The queue's task name for e-mails; the notifications table's trigger adds one job per notification due. */
export const EMAIL_TASK = 'email';

export const EMAIL_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseBackoffSeconds: 5, maxBackoffSeconds: 3600 };

const MAX_ERROR_LENGTH = 2000;

export interface EmailTaskOptions {
  orm: Orm;
  mailer: Mailer;
  logger: Logger;
  /** How long one send may hold its notification before another worker may send it again. */
  leaseMs: number;
  policy?: RetryPolicy;
}

/**
 * Sends one notification at least once: leases its row, sends outside any transaction, then records
 * the outcome. A failure schedules the next attempt under the retry policy (the row's trigger adds
 * the job again for then); a crash between lease and record leaves it pending until the lease runs out.
 */
export function emailTask({ orm, mailer, logger, leaseMs, policy = EMAIL_RETRY_POLICY }: EmailTaskOptions): Task {
  return async (payload) => {
    const { uuid } = payload as { uuid: string };
    const notification = await leaseNotification(orm, uuid, leaseMs / 1000);
    if (!notification) return; // sent, given up, not due yet, or held by another worker
    const context = { notification: uuid, kind: notification.kind, attempt: notification.attempts + 1 };
    try {
      await mailer.send({
        id: uuid,
        to: { name: notification.recipient_name, address: notification.recipient_email },
        subject: notification.subject,
        text: notification.text_body,
        html: notification.html_body,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const status = await recordFailedSend(orm, uuid, message.slice(0, MAX_ERROR_LENGTH), policy);
      const outcome = status === 'failed' ? 'failed' : 'retrying';
      logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, err: error, outcome }, 'notification not delivered');
      return;
    }
    await markNotificationDelivered(orm, uuid);
    logger.info(context, 'notification delivered');
  };
}

/** E-mails run this many at once per process. */
const EMAIL_CONCURRENCY = 4;

/** The e-mail kind as a process runs it: the task with the SMTP or `.eml` mailer from config. */
export function emailWork(config: Config, orm: Orm, logger: Logger): QueueKind & { close(): void } {
  const mailer = createMailer(config, logger);
  return {
    tasks: { [EMAIL_TASK]: emailTask({ orm, mailer, logger, leaseMs: config.notificationLeaseMs }) },
    concurrency: EMAIL_CONCURRENCY,
    close: () => mailer.close(),
  };
}
