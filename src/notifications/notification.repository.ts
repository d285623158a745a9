import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { RECORD_FAILED_ATTEMPT, retryParameters, type RetryPolicy } from '../queue/retry-policy.js';

/** A notification leased for sending, with what the e-mail needs. */
export interface ClaimedNotification {
  uuid: string;
  kind: string;
  recipient_email: string;
  recipient_name: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
}

// The lease marks the notification as being sent; a worker that dies leaves it to run out (queue/queue.repository.ts).
const CLAIM = `update notifications set locked_until = now() + make_interval(secs => ?)
  where uuid = ? and status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
  returning uuid, kind, recipient_email, recipient_name, subject, text_body, html_body, attempts`;

const DELIVERED = `update notifications
  set status = 'delivered', delivered_at = now(), attempts = attempts + 1, locked_until = null, updated_at = now()
  where uuid = ? and status = 'pending'`;

const FAILED = `update notifications set last_error = ?, ${RECORD_FAILED_ATTEMPT('attempts', 'notification_status')}
  where uuid = ? and status = 'pending' returning status`;

const OUTBOX_BACKLOG = `select count(*)::int as backlog,
  coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_seconds
  from notifications where status = 'pending'`;

/** Leases the notification for `leaseSeconds` unless it is sent, given up, not due yet, or held by another worker. */
export async function leaseNotification(orm: Orm, uuid: string, leaseSeconds: number): Promise<ClaimedNotification | undefined> {
  const [notification] = await orm.em.fork().execute<ClaimedNotification[]>(CLAIM, [leaseSeconds, uuid]);
  return notification;
}

export async function markNotificationDelivered(orm: Orm, uuid: string): Promise<void> {
  await orm.em.fork().execute(DELIVERED, [uuid], 'run');
}

/** Records a failed send under `policy`; returns the notification's status after it (`failed`: given up). */
export async function recordFailedSend(orm: Orm, uuid: string, error: string, policy: RetryPolicy): Promise<string | undefined> {
  const [row] = await orm.em.fork().execute<{ status: string }[]>(FAILED, [error, ...retryParameters(policy), uuid]);
  return row?.status;
}

/** Notifications pending across all tenants, and how long the oldest has waited (0: none). */
export async function outboxBacklog(em: EntityManager): Promise<{ backlog: number; oldest_seconds: number } | undefined> {
  const [row] = await em.getConnection().execute<{ backlog: number; oldest_seconds: number }[]>(OUTBOX_BACKLOG);
  return row;
}
