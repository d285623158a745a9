import { ArrayMaxSize, ArrayNotEmpty, ValidateBy } from 'class-validator';
import { ArgsType, Field, ID, InputType } from 'type-graphql';
import { ListArgsType, PageArgs } from '../graphql/connection.js';
import { MaxChars, Nullable, Present, Url } from '../graphql/validators.js';
import { WebhookDeliveryStatus } from './webhook-delivery.entity.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from './webhook-events.js';

const EVENT_LIST = WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\``).join(', ');

/** http(s) only: deliveries are POSTs over HTTP. */
const HttpUrl = () =>
  ValidateBy({
    name: 'httpUrl',
    validator: {
      validate: (value) => value == null || /^https?:\/\//i.test(String(value)),
      defaultMessage: () => 'The url must start with http:// or https://.',
    },
  });

const KnownEvents = () =>
  ValidateBy({
    name: 'knownEvents',
    validator: {
      validate: (value) => value == null || (Array.isArray(value) && value.every(isWebhookEventType)),
      defaultMessage: () => `The selected events are invalid; allowed: ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
    },
  });

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateWebhookInput {
  @Field({ nullable: true, description: 'Where deliveries are POSTed (http or https).' })
  @Present()
  @Url()
  @HttpUrl()
  @MaxChars(2048)
  url?: string;

  @Field(() => [String], { nullable: true, description: `Event types to receive: ${EVENT_LIST}.` })
  @Present()
  @ArrayNotEmpty({ message: 'The events field must have at least 1 item.' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length, { message: `The events field may not have more than ${WEBHOOK_EVENT_TYPES.length} items.` })
  @KnownEvents()
  events?: string[];

  @Field(() => String, { nullable: true, description: 'A note for the integrator.' })
  @Nullable()
  @MaxChars(255)
  description?: string | null;

  @Field({ nullable: true, description: '`false` stops deliveries; `true` resumes them (also after an automatic disabling). Default `true`.' })
  @Present()
  enabled?: boolean;
}

@InputType({ description: 'Every field of a webhook endpoint: create and PUT.' })
export class WebhookInput extends UpdateWebhookInput {
  @Field({ description: 'Where deliveries are POSTed (http or https).' })
  declare url: string;

  @Field(() => [String], { description: `Event types to receive: ${EVENT_LIST}.` })
  declare events: string[];
}

@InputType({ description: 'Equality filters on webhook endpoints.' })
export class WebhookWhere {
  @Field({ nullable: true, description: 'The exact endpoint URL.' })
  url?: string;
}

export const WebhookListArgs = ListArgsType('Webhook', WebhookWhere, ['url', 'created_at', 'updated_at']);

@ArgsType()
export class WebhookDeliveryArgs extends PageArgs {
  @Field(() => ID, { description: 'The webhook endpoint whose deliveries to list.' })
  webhookUuid!: string;

  @Field(() => WebhookDeliveryStatus, { nullable: true, description: 'Only deliveries in this state.' })
  status?: WebhookDeliveryStatus;
}
