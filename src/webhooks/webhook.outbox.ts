import type { EntityManager } from '@mikro-orm/core';
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
