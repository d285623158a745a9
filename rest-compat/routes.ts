import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { DomainError } from '../src/errors/domain-error.js';
import { toCamel } from '../src/identifier-case.js';
import { renameKeys } from './case.js';
import { fileRoutes } from './file-routes.js';
import { jobRoutes } from './job-routes.js';
import { buildOperation } from './operation.js';
import { portfolioRoutes } from './portfolio-routes.js';
import { resourceRoutes } from './resource.js';
import * as resources from './resources.js';
import type { RestRoute } from './route.js';
import { fields, type SelectionSource } from './selection.js';
import { webhookRoutes } from './webhook-routes.js';
import { offerRoutes } from './offer-routes.js';

const COLLECTIONS = [
  resources.institutions,
  resources.modules,
  resources.courses,
  resources.moduleGroups,
  resources.cohorts,
  resources.students,
  resources.enrollments,
  resources.certificateTemplates,
  resources.certificates,
  resources.portfolioPages,
  resources.webhooks,
];

type Body = Record<string, unknown>;
const bodyOf = (req: Request): Body => (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Body) : {});

/**
 * A route that runs one mutation: `result: <mutation>(every argument bound to the variable of its
 * name) { selection }`, built from the schema; `variables` supplies them by argument name.
 */
function mutationRoute(
  schema: GraphQLSchema,
  route: Pick<RestRoute, 'method' | 'path' | 'variables' | 'docs' | 'status' | 'location'>,
  mutation: string,
  selection: SelectionSource,
): RestRoute {
  const label = `${route.method.toUpperCase()} ${route.path}`;
  return {
    ...route,
    document: buildOperation(schema, {
      type: 'mutation',
      name: mutation,
      route: label,
      fields: [{ field: mutation, alias: 'result', selection: fields(selection) }],
    }),
  };
}

/**
 * The attach body: `{"modules": [{"module_uuid", "course_module_group_uuid", "order"}]}`, or the flat
 * form `{"module_uuid" | "module_uuids", "course_module_group_uuid", "order"}` for one group.
 */
function attachments(req: Request): unknown {
  const body = bodyOf(req);
  if (body.modules !== undefined) return renameKeys(body.modules, toCamel);
  const uuids = body.module_uuids ?? (body.module_uuid === undefined ? [] : [body.module_uuid]);
  if (!Array.isArray(uuids)) return uuids;
  return uuids.map((moduleUuid) => ({ moduleUuid, courseModuleGroupUuid: body.course_module_group_uuid, order: body.order }));
}

const courseModuleRoutes = (schema: GraphQLSchema): RestRoute[] => [
  mutationRoute(
    schema,
    {
      method: 'post',
      path: '/courses/:uuid/attach/modules',
      variables: (req) => ({ courseUuid: req.params.uuid, modules: attachments(req) }),
      docs: { body: { modules: 'modules' } },
    },
    'attachModulesToCourse',
    resources.courses.fields,
  ),
  mutationRoute(
    schema,
    {
      method: 'post',
      path: '/courses/:uuid/detach/modules',
      variables: (req) => ({ courseUuid: req.params.uuid, moduleUuids: bodyOf(req).module_uuids }),
      docs: { body: { module_uuids: 'moduleUuids' } },
    },
    'detachModulesFromCourse',
    resources.courses.fields,
  ),
];

const certificateRoutes = (schema: GraphQLSchema): RestRoute[] => [
  mutationRoute(
    schema,
    {
      method: 'post',
      path: '/certificates/:uuid/revoke',
      variables: (req) => ({ uuid: req.params.uuid, reason: bodyOf(req).reason }),
      docs: { body: { reason: 'reason' } },
    },
    'revokeCertificate',
    resources.certificates.fields,
  ),
  mutationRoute(
    schema,
    {
      method: 'post',
      path: '/certificates/:uuid/issue',
      variables: (req) => ({ uuid: req.params.uuid, notify: bodyOf(req).notify }),
      docs: { body: { notify: 'notify' } },
    },
    'issueCertificate',
    resources.certificates.fields,
  ),
  mutationRoute(
    schema,
    {
      method: 'post',
      path: '/certificates/:uuid/notifications',
      variables: (req) => ({ uuid: req.params.uuid }),
      status: () => 202,
      location: '/certificates/:uuid',
    },
    'resendCertificateNotification',
    resources.certificates.fields,
  ),
];

/** GraphQL answers null where there is no badge (badges off, a draft): over REST that path does not exist. */
const badgeDocument = (field: string) => (result: unknown) => {
  const document = (result as Record<string, unknown> | null)?.[field];
  if (!document) throw new DomainError('NOT_FOUND', 'Not found.');
  return { data: document };
};

/** GET of one JSON field of a record: `result: <query>(uuid: $uuid) { <field> }`, presented by `badgeDocument`. */
function badgeRoute(schema: GraphQLSchema, path: string, query: string, field: string, snakeField: string): RestRoute {
  return {
    method: 'get',
    path,
    document: buildOperation(schema, {
      type: 'query',
      name: `${field[0]!.toUpperCase()}${field.slice(1)}`,
      route: `GET ${path}`,
      fields: [{ field: query, alias: 'result', selection: fields(field) }],
    }),
    variables: (req) => ({ uuid: req.params.uuid }),
    present: badgeDocument(snakeField),
    docs: { dataField: snakeField },
  };
}

const badgeRoutes = (schema: GraphQLSchema): RestRoute[] => [
  badgeRoute(schema, '/institutions/:uuid/badges/issuers', 'institution', 'badgeIssuer', 'badge_issuer'),
  badgeRoute(schema, '/certificates/:uuid/badges/assertions', 'certificate', 'badgeAssertion', 'badge_assertion'),
  badgeRoute(schema, '/certificates/:uuid/badges/credentials', 'certificate', 'openBadgeCredential', 'open_badge_credential'),
];

const COUNTS = 'pageViews pdfDownloads badgeFetches credentialFetches shareClicks linkedinAdds walletClaims';

/** GET /certificates/{uuid}/engagement: the certificate's daily public engagement (docs/public-pages.md). */
const engagementRoute = (schema: GraphQLSchema): RestRoute => ({
  method: 'get',
  path: '/certificates/:uuid/engagement',
  document: buildOperation(schema, {
    type: 'query',
    name: 'CertificateEngagement',
    route: 'GET /certificates/:uuid/engagement',
    fields: [{ field: 'certificate', alias: 'result', selection: fields(`engagement { totals { ${COUNTS} } days { day ${COUNTS} } }`) }],
  }),
  variables: (req) => ({ uuid: req.params.uuid }),
  present: (result) => {
    const engagement = (result as { engagement?: unknown } | null)?.engagement;
    if (!engagement) throw new DomainError('NOT_FOUND', 'Not found.');
    return { data: engagement };
  },
  docs: { dataField: 'engagement' },
});

/**
 * The route table: every REST path this service answers besides the token endpoint. Building it
 * builds and validates every route's operation, so it throws (and the service does not start)
 * when a route no longer matches the schema.
 */
export function routes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  return [
    {
      method: 'get',
      path: '/whoami',
      document: buildOperation(schema, {
        type: 'query',
        name: 'Viewer',
        route: 'GET /whoami',
        fields: [{ field: 'viewer', alias: 'result', selection: fields('clientId tenant { identifier name }') }],
      }),
    },
    ...courseModuleRoutes(schema),
    ...certificateRoutes(schema),
    ...jobRoutes(schema, publicBaseUrl),
    ...badgeRoutes(schema),
    engagementRoute(schema),
    ...offerRoutes(schema),
    ...portfolioRoutes(schema, publicBaseUrl),
    ...COLLECTIONS.flatMap((resource) => resourceRoutes(resource, schema, publicBaseUrl)),
    ...fileRoutes(schema, publicBaseUrl),
    ...webhookRoutes(schema, publicBaseUrl),
  ];
}
