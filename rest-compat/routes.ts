import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { toCamel } from '../src/identifier-case.js';
import { renameKeys } from './case.js';
import { fileRoutes } from './file-routes.js';
import { portfolioRoutes } from './portfolio-routes.js';
import { resourceRoutes } from './resource.js';
import * as resources from './resources.js';
import type { RestRoute } from './route.js';

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
];

type Body = Record<string, unknown>;
const bodyOf = (req: Request): Body => (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Body) : {});

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

const courseModuleRoutes = (): RestRoute[] => [
  {
    method: 'post',
    path: '/courses/:uuid/attach/modules',
    document: `mutation Attach($uuid: ID!, $modules: [ModuleAttachmentInput!]!) { result: attachModulesToCourse(courseUuid: $uuid, modules: $modules) { ${resources.courses.fields} } }`,
    variables: (req) => ({ uuid: req.params.uuid, modules: attachments(req) }),
  },
  {
    method: 'post',
    path: '/courses/:uuid/detach/modules',
    document: `mutation Detach($uuid: ID!, $moduleUuids: [ID!]!) { result: detachModulesFromCourse(courseUuid: $uuid, moduleUuids: $moduleUuids) { ${resources.courses.fields} } }`,
    variables: (req) => ({ uuid: req.params.uuid, moduleUuids: bodyOf(req).module_uuids }),
  },
];

const certificateRoutes = (): RestRoute[] => [
  {
    method: 'post',
    path: '/certificates/:uuid/revoke',
    document: `mutation Revoke($uuid: ID!, $reason: String!) { result: revokeCertificate(uuid: $uuid, reason: $reason) { ${resources.certificates.fields} } }`,
    variables: (req) => ({ uuid: req.params.uuid, reason: bodyOf(req).reason }),
  },
  {
    method: 'post',
    path: '/certificates/:uuid/issue',
    document: `mutation Issue($uuid: ID!) { result: issueCertificate(uuid: $uuid) { ${resources.certificates.fields} } }`,
    variables: (req) => ({ uuid: req.params.uuid }),
  },
];

/** The route table: every REST path this service answers besides the token endpoint. */
export function routes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  return [
    {
      method: 'get',
      path: '/whoami',
      document: 'query Viewer { result: viewer { clientId tenant { identifier name } } }',
    },
    ...courseModuleRoutes(),
    ...certificateRoutes(),
    ...portfolioRoutes(schema, publicBaseUrl),
    ...COLLECTIONS.flatMap((resource) => resourceRoutes(resource, schema, publicBaseUrl)),
    ...fileRoutes(schema, publicBaseUrl),
  ];
}
