import { type Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../db/base.entity.js';
import { OUTBOX_CHANNEL } from './outbox-signal.js';

export enum NotificationStatus {
  pending = 'pending',
  delivered = 'delivered',
  failed = 'failed',
}

/**
 * One message to a student, written to this outbox in the transaction that caused it and sent later
 * by the notification worker. Internal: never exposed over GraphQL or REST.
 */
@Entity({
  tableName: 'notifications',
  // Wakes the workers (notifications/outbox-signal.ts): NOTIFY is delivered when the inserting
  // transaction commits and dropped when it rolls back.
  triggers: [
    { name: 'signal_outbox', timing: 'after', events: ['insert'], forEach: 'statement', body: `perform pg_notify('${OUTBOX_CHANNEL}', ''); return null;` },
  ],
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

  /** While in the future, a worker is sending this row; once past, another worker may take it over. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  deliveredAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  lastError?: string | null;
}
