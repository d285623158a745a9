import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TenantScopedEntity } from '../db/base.entity.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookMessage } from './webhook-message.entity.js';
import { backlogPriority, PARK_BEHIND_TENANT, PARKED_INDEX, scheduleDelivery } from './webhook.repository.js';

export enum WebhookDeliveryStatus {
  pending = 'pending',
  delivered = 'delivered',
  failed = 'failed',
}
registerEnumType(WebhookDeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description: 'Where a webhook delivery stands.',
  valuesConfig: {
    pending: { description: 'Queued, being sent, or waiting for its next attempt.' },
    delivered: { description: 'The endpoint answered 2xx.' },
    failed: { description: 'Every attempt failed (WEBHOOK_MAX_ATTEMPTS); it can be redelivered.' },
  },
});

/** One attempt as the delivery log keeps it (JSON in the delivery row; at most one per attempt). */
export interface AttemptRecord {
  at: string;
  status: number | null;
  error: string | null;
  ms: number;
}

/** One message to one endpoint: the unit that is retried, logged and redelivered. */
@ObjectType({ simpleResolvers: true, description: 'One event sent to one webhook endpoint, with every attempt.' })
@Entity({
  tableName: 'webhook_deliveries',
  // Whenever a delivery becomes due-able (queued, its next attempt moved, its lease given back), its job
  // is (re)scheduled in the same transaction: a rolled-back event schedules nothing. One queued behind its
  // tenant's parked deliveries is parked instead, with no job.
  triggers: [
    { name: 'park_behind_tenant', timing: 'before', events: ['insert'], forEach: 'row', body: PARK_BEHIND_TENANT },
    {
      name: 'schedule_webhook',
      timing: 'after',
      events: ['insert', 'update'],
      forEach: 'row',
      body: `if new.status = 'pending' and new.locked_until is null and new.parked_at is null and (tg_op = 'INSERT' or old.locked_until is not null or new.next_attempt_at is distinct from old.next_attempt_at) then
          perform ${scheduleDelivery('new', { priority: backlogPriority('new') })};
        end if;
        return null;`,
    },
  ],
})
@Index({ name: 'webhook_deliveries_due_index', properties: ['nextAttemptAt'], where: { status: WebhookDeliveryStatus.pending } })
@Index({ name: 'webhook_deliveries_order_index', properties: ['endpoint', 'subjectUuid', 'enqueuedAt'], where: { status: WebhookDeliveryStatus.pending } })
@Index({ name: 'webhook_deliveries_endpoint_queue_index', properties: ['endpoint', 'enqueuedAt'], where: { status: WebhookDeliveryStatus.pending } })
@Index({ name: 'webhook_deliveries_lease_index', properties: ['lockedUntil'], where: { status: WebhookDeliveryStatus.pending } })
@Index({ name: 'webhook_deliveries_parked_index', expression: PARKED_INDEX })
export class WebhookDelivery extends TenantScopedEntity {
  @ManyToOne(() => WebhookEndpoint, { ref: true, index: true })
  endpoint!: Ref<WebhookEndpoint>;

  /** Its `uuid` is the `webhook-id` header: the same for every endpoint, retry and redelivery of one event. */
  @ManyToOne(() => WebhookMessage, { ref: true, index: true })
  message!: Ref<WebhookMessage>;

  @Field({ description: 'The event type, e.g. `certificate.issued`.' })
  @Property({ length: 64 })
  eventType!: string;

  @Field({ description: 'The record the event is about (a certificate or file uuid).' })
  @Property({ type: 'uuid' })
  subjectUuid!: string;

  /** Database time of queueing: orders the deliveries about one record (later transactions queue later). */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', defaultRaw: 'clock_timestamp()' })
  enqueuedAt!: Date & Opt;

  @Field(() => WebhookDeliveryStatus, { description: 'Where the delivery stands.' })
  @Enum({ items: () => WebhookDeliveryStatus, nativeEnumName: 'webhook_delivery_status' })
  status: WebhookDeliveryStatus & Opt = WebhookDeliveryStatus.pending;

  @Field(() => Int, { description: 'Attempts made so far.' })
  @Property({ type: 'integer' })
  attemptCount: number & Opt = 0;

  @Field(() => Date, { description: 'When the next attempt is due (while pending).' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', defaultRaw: 'now()' })
  nextAttemptAt!: Date & Opt;

  /** While in the future, a worker is sending this delivery; once past, it is due again (a worker that died). */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  lockedUntil?: Date | null;

  /** Since when it waits for a place in its tenant's share of deliveries in flight (webhook.repository.ts, `PARK_FOR_TENANT`, `PARK_BEHIND_TENANT`). */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  parkedAt?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When a 2xx answer came; null until then.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  deliveredAt?: Date | null;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt; null when no answer came.' })
  @Property({ type: 'integer', nullable: true })
  lastResponseStatus?: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed.' })
  @Property({ type: 'text', nullable: true })
  lastError?: string | null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  attemptLog: AttemptRecord[] & Opt = [];
}
