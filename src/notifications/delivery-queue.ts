import type { Orm } from '../db/orm.js';

/** A notification a worker has reserved (leased) for sending. */
export interface ClaimedNotification {
  uuid: string;
  kind: string;
  recipientEmail: string;
  recipientName: string;
  subject: string;
  textBody: string;
  htmlBody: string | null;
  attempts: number;
}

export interface RetryPolicy {
  /** After this many failed attempts the notification is given up as `failed`. */
  maxAttempts: number;
  /** Wait after the first failure; doubles with every further one, up to `maxBackoffSeconds`. */
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseBackoffSeconds: 5, maxBackoffSeconds: 3600 };

const MAX_ERROR_LENGTH = 2000;

/**
 * The worker's view of the outbox across every tenant. The one place that reads and writes
 * notifications without the tenant filter: raw SQL, so no tenant-scoped EntityManager is involved.
 */
export class DeliveryQueue {
  constructor(
    private readonly orm: Orm,
    readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {}

  /**
   * Reserves up to `limit` due notifications for `leaseMs` in one statement (its own short
   * transaction). SKIP LOCKED lets concurrent workers claim disjoint rows; the lease makes a row
   * whose worker died mid-send due again once it runs out.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedNotification[]> {
    const rows = await this.orm.em.fork().execute<Record<string, unknown>[]>(
      `with due as materialized (
         select uuid from notifications
         where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
         order by next_attempt_at
         limit ?
         for update skip locked
       )
       update notifications n set locked_until = now() + make_interval(secs => ?)
       from due where n.uuid = due.uuid
       returning n.uuid, n.kind, n.recipient_email, n.recipient_name, n.subject, n.text_body, n.html_body, n.attempts`,
      [limit, leaseMs / 1000],
    );
    return rows.map((row) => ({
      uuid: String(row.uuid),
      kind: String(row.kind),
      recipientEmail: String(row.recipient_email),
      recipientName: String(row.recipient_name),
      subject: String(row.subject),
      textBody: String(row.text_body),
      htmlBody: row.html_body == null ? null : String(row.html_body),
      attempts: Number(row.attempts),
    }));
  }

  /** Final: a delivered notification is never claimed again. */
  async markDelivered(uuid: string): Promise<void> {
    await this.orm.em.fork().execute(
      `update notifications
       set status = 'delivered', delivered_at = now(), attempts = attempts + 1, locked_until = null, updated_at = now()
       where uuid = ? and status = 'pending'`,
      [uuid],
      'run',
    );
  }

  /** Records the failure and schedules the next attempt with exponential backoff, or gives up. */
  async markFailed(uuid: string, error: string): Promise<'retrying' | 'failed'> {
    const { maxAttempts, baseBackoffSeconds, maxBackoffSeconds } = this.policy;
    const rows = await this.orm.em.fork().execute<{ status: string }[]>(
      `update notifications
       set attempts = attempts + 1,
           last_error = ?,
           locked_until = null,
           updated_at = now(),
           next_attempt_at = now() + make_interval(secs => least(?, ? * power(2, attempts))),
           status = case when attempts + 1 >= ? then 'failed'::notification_status else status end
       where uuid = ? and status = 'pending'
       returning status`,
      [error.slice(0, MAX_ERROR_LENGTH), maxBackoffSeconds, baseBackoffSeconds, maxAttempts, uuid],
    );
    return rows[0]?.status === 'failed' ? 'failed' : 'retrying';
  }

  /** Hands claimed but unsent notifications back at once (used when stopping). */
  async release(uuids: string[]): Promise<void> {
    if (uuids.length === 0) return;
    await this.orm.em
      .fork()
      .execute(`update notifications set locked_until = null where uuid in (${uuids.map(() => '?').join(', ')}) and status = 'pending'`, uuids, 'run');
  }
}
