import type { Task } from 'graphile-worker';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { QueueKind } from '../queue/job-queue.js';
import { RECORD_FAILED_ATTEMPT, retryParameters, type RetryPolicy } from '../queue/retry-policy.js';
import { createMailer, type Mailer } from './mailer.js';

/** The queue's task name for e-mails; the notifications table's trigger adds one job per notification due. */
export const EMAIL_TASK = 'email';

export const EMAIL_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseBackoffSeconds: 5, maxBackoffSeconds: 3600 };

const MAX_ERROR_LENGTH = 2000;

interface ClaimedNotification {
  uuid: string;
  kind: string;
  recipient_email: string;
  recipient_name: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
}

// The lease marks the notification as being sent; a worker that dies leaves it to run out (queue/expired-leases.ts).
const CLAIM = `update notifications set locked_until = now() + make_interval(secs => ?)
  where uuid = ? and status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
  returning uuid, kind, recipient_email, recipient_name, subject, text_body, html_body, attempts`;

const DELIVERED = `update notifications
  set status = 'delivered', delivered_at = now(), attempts = attempts + 1, locked_until = null, updated_at = now()
  where uuid = ? and status = 'pending'`;

const FAILED = `update notifications set last_error = ?, ${RECORD_FAILED_ATTEMPT('attempts', 'notification_status')}
  where uuid = ? and status = 'pending' returning status`;

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
    const [notification] = await orm.em.fork().execute<ClaimedNotification[]>(CLAIM, [leaseMs / 1000, uuid]);
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
      const [row] = await orm.em.fork().execute<{ status: string }[]>(FAILED, [message.slice(0, MAX_ERROR_LENGTH), ...retryParameters(policy), uuid]);
      const outcome = row?.status === 'failed' ? 'failed' : 'retrying';
      logger[outcome === 'failed' ? 'error' : 'warn']({ ...context, err: error, outcome }, 'notification not delivered');
      return;
    }
    await orm.em.fork().execute(DELIVERED, [uuid], 'run');
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
