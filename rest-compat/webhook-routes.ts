import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { LIST_FIELDS, listBody, type ListResult } from './list-envelope.js';
import { buildOperation } from './operation.js';
import { listPaging } from './query-params.js';
import { WEBHOOK_DELIVERY } from './resources.js';
import type { RestRoute } from './route.js';
import { fields, nest } from './selection.js';

const DELIVERIES = '/webhooks/:webhookUuid/deliveries';

/** `where[status]=failed` on the delivery log. */
const statusFilter = (req: Request): unknown => (req.query.where as Record<string, unknown> | undefined)?.status;

/** The delivery log of an endpoint (Laravel paginator, newest first) and redelivery on request. */
export function webhookRoutes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  return [
    {
      method: 'get',
      path: DELIVERIES,
      document: buildOperation(schema, {
        type: 'query',
        name: 'WebhookDeliveries',
        route: `GET ${DELIVERIES}`,
        fields: [{ field: 'webhookDeliveries', alias: 'result', selection: fields(LIST_FIELDS).concat(nest('nodes', WEBHOOK_DELIVERY)) }],
      }),
      variables: (req) => {
        const { variables: paging } = listPaging(req.query);
        return { webhookUuid: req.params.webhookUuid, status: statusFilter(req), ...paging };
      },
      present: (result, req) => {
        const list = result as ListResult & { nodes: unknown[] };
        return listBody(list.nodes, listPaging(req.query).paging, list, `${publicBaseUrl}/api/v1`, req);
      },
    },
    {
      method: 'post',
      path: `${DELIVERIES}/:uuid/redeliver`,
      // No Location: a single delivery has no GET of its own (the log lists it).
      status: 201,
      document: buildOperation(schema, {
        type: 'mutation',
        name: 'RedeliverWebhookDelivery',
        route: `POST ${DELIVERIES}/:uuid/redeliver`,
        fields: [{ field: 'redeliverWebhookDelivery', alias: 'result', selection: WEBHOOK_DELIVERY }],
      }),
      variables: (req) => ({ webhookUuid: req.params.webhookUuid, uuid: req.params.uuid }),
    },
  ];
}
