import type { EntityManager } from '@mikro-orm/core';
import { Notification } from './notification.entity.js';

/** A message to queue; `referenceUuid` names the record it is about (a certificate). */
export interface OutboxMessage {
  kind: string;
  recipientEmail: string;
  recipientName: string;
  subject: string;
  textBody: string;
  htmlBody?: string | null;
  referenceUuid?: string | null;
}

/**
 * Queues a notification in the caller's unit of work (tenant-scoped EntityManager): it is written
 * by the caller's flush and commits or rolls back with the caller's transaction. No wake-up call is
 * needed: an insert trigger NOTIFYs the workers when that transaction commits.
 */
export function enqueueNotification(em: EntityManager, message: OutboxMessage): Notification {
  const notification = em.create(Notification, {
    kind: message.kind,
    recipientEmail: message.recipientEmail,
    recipientName: message.recipientName,
    subject: message.subject,
    textBody: message.textBody,
    htmlBody: message.htmlBody ?? null,
    referenceUuid: message.referenceUuid ?? null,
  });
  em.persist(notification);
  return notification;
}
