import { type Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../db/base.entity.js';

export enum NotificationStatus {
  pending = 'pending',
  delivered = 'delivered',
  failed = 'failed',
}

/**
 * One message to a student, written to this outbox in the transaction that caused it and sent later
 * by the e-mail task of the job queue. Internal: never exposed over GraphQL or REST.
 */
@Entity({
  tableName: 'notifications',
  // Whenever the row becomes due-able (queued, its next attempt moved, its lease given back), one job
  // of the `email` task is (re)scheduled for its next attempt, in the same transaction: a rolled-back
  // enqueue schedules nothing, and the queue wakes its workers on commit.
  triggers: [
    {
      name: 'schedule_email',
      timing: 'after',
      events: ['insert', 'update'],
      forEach: 'row',
      body: `if new.status = 'pending' and new.locked_until is null and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform graphile_worker.add_job('email', json_build_object('uuid', new.uuid), run_at := new.next_attempt_at, job_key := 'email:' || new.uuid);
        end if;
        return null;`,
    },
  ],
})
@Index({
  name: 'notifications_reference_index',
  expression: `create index "notifications_reference_index" on "notifications" ("tenant_uuid", "reference_uuid", "created_at") where "reference_uuid" is not null`,
})
@Index({ name: 'notifications_due_index', properties: ['nextAttemptAt'], where: { status: NotificationStatus.pending } })
export class Notification extends TenantScopedEntity {
  /** What happened, e.g. `certificate_issued`. */
  @Property({ length: 64 })
  kind!: string;

  @Property({ length: 320 })
  recipientEmail!: string;

  @Property({ length: 255 })
  recipientName!: string;

  @Property({ type: 'text' })
  subject!: string;

  @Property({ type: 'text' })
  textBody!: string;

  @Property({ type: 'text', nullable: true })
  htmlBody?: string | null;

  /** The record the message is about (a certificate's uuid). */
  @Property({ type: 'uuid', nullable: true })
  referenceUuid?: string | null;

  @Enum({ items: () => NotificationStatus, nativeEnumName: 'notification_status' })
  status: NotificationStatus & Opt = NotificationStatus.pending;

  @Property({ type: 'integer' })
  attempts: number & Opt = 0;

  /** Filled by the database on insert, so every due-check compares against one clock. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', defaultRaw: 'now()' })
  nextAttemptAt!: Date & Opt;

  /** While in the future, a worker is sending this row; once past, it is due again (a worker that died). */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  deliveredAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  lastError?: string | null;
}
