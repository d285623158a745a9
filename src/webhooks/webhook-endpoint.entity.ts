import { ArrayType, type Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { TenantScopedEntity } from '../db/base.entity.js';
import { scheduleDelivery } from './webhook.repository.js';

/**
 * A URL of the tenant's that receives signed POSTs for the events it subscribes to. The signing
 * secret is readable only in the answer that created it (`secret`, like Stripe's endpoint object).
 */
@ObjectType('Webhook', { simpleResolvers: true, description: 'An endpoint that receives signed event deliveries (Standard Webhooks).' })
@Entity({
  tableName: 'webhook_endpoints',
  // A disabled endpoint's deliveries wait without a job; enabling it again schedules them.
  triggers: [
    {
      name: 'schedule_on_enable',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      body: `if old.disabled_at is not null and new.disabled_at is null then
          perform ${scheduleDelivery('d')} from webhook_deliveries d where d.endpoint_uuid = new.uuid and d.status = 'pending' and d.locked_until is null;
        end if;
        return null;`,
    },
  ],
})
export class WebhookEndpoint extends TenantScopedEntity {
  @Field({ description: 'Where deliveries are POSTed (http or https).' })
  @Property({ length: 2048 })
  url!: string;

  @Field(() => String, { nullable: true, description: 'A note for the integrator.' })
  @Property({ length: 255, nullable: true })
  description?: string | null;

  @Field(() => [String], { description: 'Subscribed event types, e.g. `certificate.issued`.' })
  @Property({ type: ArrayType, columnType: 'text[]' })
  events!: string[];

  /**
   * The signing secret (`whsec_` + base64 of 24 random bytes), sealed with the key-encryption key to
   * `webhook_endpoints/<uuid>` (webhook-secrets.ts). Null only between the migration that moved older
   * plaintext secrets aside and the startup that seals them.
   */
  @Property({ type: 'blob', nullable: true, hidden: true })
  sealedSigningSecret?: Buffer | null;

  /** Since when every attempt to this endpoint failed (the first failure after its last success); null while it answers. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  failingSince?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When deliveries stopped, by the client or after repeated failures; null while enabled.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  disabledAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Why deliveries stopped; null while enabled.' })
  @Property({ type: 'text', nullable: true })
  disabledReason?: string | null;

  /** Set only on the instance a create returned: the one time the secret is shown. */
  revealedSecret?: string & Opt;
}
