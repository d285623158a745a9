import type { RequestContext } from '../context/request-context.js';
import { findPage, type ListOptions } from '../db/listing.js';
import { findOrFail } from '../db/lookup.js';
import type { Page } from '../db/paging.js';
import type { Row } from '../db/rows.js';
import { conflict, DomainError, invalid, notFound } from '../errors/domain-error.js';
import { assignPresent, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import type { WebhookDeliveryArgs, WebhookInput } from './webhook.inputs.js';
import { generateWebhookSecret } from './webhook-signature.js';
import { sealWebhookSecret } from './webhook-secrets.js';
import { registrationProblem } from './webhook-target.js';
import { countLiveEndpoints, lockTenantEndpoints } from './webhook.repository.js';

/** Webhook endpoints of a tenant, their delivery log and redelivery. Deliveries themselves are the worker's. */
export class WebhookService extends ResourceService<WebhookEndpoint, WebhookInput> {
  protected readonly entity = WebhookEndpoint;
  protected readonly label = 'Webhook';
  protected readonly defaults: Partial<WebhookInput> = { description: null, enabled: true };

  protected async apply(ctx: RequestContext, row: WebhookEndpoint, input: Partial<WebhookInput>, mode: WriteMode): Promise<void> {
    if (mode === 'create') await this.requireRoomForOneMore(ctx);
    if (input.url != null) {
      const problem = await registrationProblem(input.url, ctx.webhooks.allowPrivate);
      if (problem) throw invalid({ url: [problem] }, 'WEBHOOK_URL_REFUSED');
    }
    assignPresent(row, input, ['url', 'description']);
    if (input.events) row.events = [...new Set(input.events)];
    // Enabling starts a fresh failing streak: the endpoint gets the full WEBHOOK_DISABLE_AFTER_HOURS again.
    if (input.enabled === true) Object.assign(row, { disabledAt: null, disabledReason: null, failingSince: null });
    if (input.enabled === false && !row.disabledAt) Object.assign(row, { disabledAt: new Date(), disabledReason: 'Disabled by the client.' });
    if (mode === 'create') {
      row.revealedSecret = generateWebhookSecret();
      row.sealedSigningSecret = await sealWebhookSecret(ctx.signingKeys.wrapper, row.uuid, row.revealedSecret);
    }
  }

  /** A tenant has at most WEBHOOK_MAX_ENDPOINTS_PER_TENANT live endpoints: each one costs delivery slots and worker time. */
  private async requireRoomForOneMore(ctx: RequestContext): Promise<void> {
    const limit = ctx.webhooks.maxEndpointsPerTenant;
    await lockTenantEndpoints(ctx.em, ctx.tenant.uuid);
    const count = await countLiveEndpoints(ctx.em, ctx.tenant.uuid);
    if (count >= limit) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `This tenant already has ${count} webhook endpoints, the most allowed (${limit}); delete one before creating another.`,
        undefined,
        'WEBHOOK_LIMIT_REACHED',
      );
    }
  }

  /** The endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(
    ctx: RequestContext,
    { webhookUuid, status, ...page }: WebhookDeliveryArgs & Pick<ListOptions, 'withTotal'>,
  ): Promise<Page<Row<WebhookDelivery>>> {
    const endpoint = await this.get(ctx, webhookUuid);
    return findPage(
      ctx.em,
      WebhookDelivery,
      { endpoint: endpoint.uuid, ...(status ? { status } : {}) },
      { ...page, sort: { column: 'created_at', order: 'desc' } as never },
    );
  }

  /**
   * Sends a delivery's event again to its endpoint, as a new delivery (same `webhook-id`, so the
   * receiver can tell) queued behind anything pending about the same record.
   */
  redeliver(ctx: RequestContext, webhookUuid: string, deliveryUuid: string): Promise<WebhookDelivery> {
    return this.write(ctx, async (tx) => {
      const endpoint = await this.get(tx, webhookUuid);
      const original = await findOrFail(tx.em, WebhookDelivery, deliveryUuid, 'Webhook delivery');
      if (original.endpoint.uuid !== endpoint.uuid) throw notFound('Webhook delivery');
      if (endpoint.disabledAt) throw conflict('The webhook is disabled; enable it before asking for a redelivery.');
      const copy = tx.em.create(WebhookDelivery, {
        endpoint,
        message: original.message,
        eventType: original.eventType,
        subjectUuid: original.subjectUuid,
      });
      tx.em.persist(copy);
      return copy;
    });
  }
}

export const webhooks = new WebhookService();
