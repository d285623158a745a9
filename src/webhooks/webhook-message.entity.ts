import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../db/base.entity.js';

/**
 * The webhook outbox: one row per event, written in the transaction of the state change it reports.
 * Its insert trigger fans it out, in that same transaction, into one pending delivery per enabled
 * endpoint of the tenant subscribed to its type; the deliveries' trigger schedules their jobs
 * (webhook.repository.ts). Internal: never exposed.
 */
@Entity({
  tableName: 'webhook_messages',
  triggers: [
    {
      name: 'fan_out_webhook_message',
      timing: 'after',
      events: ['insert'],
      forEach: 'row',
      body: `insert into webhook_deliveries (uuid, created_at, updated_at, tenant_uuid, endpoint_uuid, message_uuid, event_type, subject_uuid, enqueued_at)
        select gen_random_uuid(), now(), now(), new.tenant_uuid, e.uuid, new.uuid, new.event_type, new.subject_uuid, clock_timestamp()
        from webhook_endpoints e
        where e.tenant_uuid = new.tenant_uuid and e.deleted_at is null and e.disabled_at is null and new.event_type = any(e.events);
        return null;`,
    },
  ],
})
export class WebhookMessage extends TenantScopedEntity {
  @Property({ length: 64 })
  eventType!: string;

  /** The record the event is about; deliveries about one record are sent in the order they were queued. */
  @Property({ type: 'uuid' })
  subjectUuid!: string;

  /** The exact JSON body every delivery of this message sends and signs. */
  @Property({ type: 'text' })
  body!: string;
}
