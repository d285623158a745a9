import type { EntityManager } from '@mikro-orm/core';
import { uuidv7 } from '../db/uuid.js';
import { Tenant } from '../tenants/tenant.entity.js';
import { webhookBody, type WebhookEvent } from './webhook-events.js';
import { WebhookMessage } from './webhook-message.entity.js';

/**
 * Queues webhook events in the caller's unit of work: written by the caller's flush, committed or
 * rolled back with the caller's state change. The table's trigger fans each one out to the
 * subscribed endpoints in the same transaction. `tenantUuid` is for callers that act across
 * tenants (the expiry sweeper); a tenant-scoped EntityManager stamps its own tenant.
 */
export function enqueueWebhookEvents(em: EntityManager, events: WebhookEvent[], tenantUuid?: string): void {
  const now = new Date();
  for (const event of events) {
    em.persist(
      em.create(WebhookMessage, {
        ...(tenantUuid ? { tenant: em.getReference(Tenant, tenantUuid, { wrapped: true }) } : {}),
        eventType: event.type,
        subjectUuid: event.subjectUuid,
        body: webhookBody(event, now),
      }),
    );
  }
}

/**
 * The rows `enqueueWebhookEvents` writes, as one `insert` for a caller that folds it into a statement
 * of its own (a data-modifying CTE) instead of a flush: the upload's last statement, to save a round
 * trip. Same columns, same body, same fan-out trigger; `?` placeholders as `em.execute` takes them.
 */
export function webhookMessagesInsert(events: WebhookEvent[], tenantUuid: string): { sql: string; params: unknown[] } {
  const now = new Date();
  const at = now.toISOString();
  const rows = events.map(() => '(?, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?)').join(', ');
  const params = events.flatMap((event) => [uuidv7(), at, at, event.type, event.subjectUuid, webhookBody(event, now), tenantUuid]);
  return {
    sql: `insert into "webhook_messages" ("uuid", "created_at", "updated_at", "event_type", "subject_uuid", "body", "tenant_uuid") values ${rows}`,
    params,
  };
}
