import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root, Info } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { uuidOf } from '../context/loaders.js';
import type { Readable, Row } from '../db/rows.js';
import { asksForTotal, type Connection, ConnectionType, toConnection } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { UpdateWebhookInput, WebhookDeliveryArgs, WebhookInput, WebhookListArgs } from './webhook.inputs.js';
import { webhooks } from './webhook.service.js';

@ObjectType({ description: 'One attempt to deliver: when, the answer, and how long it took.' })
export class WebhookAttempt {
  @Field(() => Date, { description: 'When the attempt started.' })
  attemptedAt!: Date;

  @Field(() => Int, { nullable: true, description: 'The HTTP status answered; null when no answer came (refused, timeout).' })
  responseStatus!: number | null;

  @Field(() => String, { nullable: true, description: 'Why it failed: the start of the answer body, or the connection error.' })
  error!: string | null;

  @Field(() => Int, { description: 'Milliseconds from the start to the answer or the failure.' })
  durationMs!: number;
}

const WebhookDeliveryConnection = ConnectionType(WebhookDelivery, 'WebhookDelivery');

@Resolver(() => WebhookEndpoint)
export class WebhookResolver extends ResourceResolver({
  name: 'Webhook',
  pluralName: 'Webhooks',
  type: WebhookEndpoint,
  connection: ConnectionType(WebhookEndpoint, 'Webhook'),
  listArgs: WebhookListArgs,
  input: WebhookInput,
  updateInput: UpdateWebhookInput,
  service: webhooks,
}) {
  @FieldResolver(() => Boolean, { description: 'Whether events are delivered; see `disabledReason` when not.' })
  enabled(@Root() endpoint: Readable<WebhookEndpoint>): boolean {
    return !endpoint.disabledAt;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'The signing secret (`whsec_…`), only in the createWebhook answer: store it then, it is never shown again.',
  })
  secret(@Root() endpoint: Readable<WebhookEndpoint>): string | null {
    return endpoint.revealedSecret ?? null;
  }

  @Query(() => WebhookDeliveryConnection, { description: 'The delivery log of one webhook endpoint, newest first.' })
  async webhookDeliveries(
    @Args(() => WebhookDeliveryArgs) args: WebhookDeliveryArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Row<WebhookDelivery>>> {
    return toConnection(await webhooks.deliveries(ctx, { ...args, withTotal: asksForTotal(info) }));
  }

  @Mutation(() => WebhookDelivery, { description: 'Sends a delivery’s event again (a new delivery with the same `webhook-id`).' })
  redeliverWebhookDelivery(
    @Arg('webhookUuid', () => ID, { description: 'The endpoint the delivery went to.' }) webhookUuid: string,
    @Arg('uuid', () => ID, { description: 'The delivery to send again.' }) uuid: string,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookDelivery> {
    return webhooks.redeliver(ctx, webhookUuid, uuid);
  }
}

@Resolver(() => WebhookDelivery)
export class WebhookDeliveryResolver {
  @FieldResolver(() => ID, { description: 'The `webhook-id` header: the event’s id, the same on every retry and redelivery.' })
  webhookId(@Root() delivery: Readable<WebhookDelivery>): string {
    return uuidOf(delivery.message);
  }

  @FieldResolver(() => [WebhookAttempt], { description: 'Every attempt, oldest first.' })
  attempts(@Root() delivery: Readable<WebhookDelivery>): WebhookAttempt[] {
    return delivery.attemptLog.map((attempt) => ({
      attemptedAt: new Date(attempt.at),
      responseStatus: attempt.status,
      error: attempt.error,
      durationMs: attempt.ms,
    }));
  }
}
