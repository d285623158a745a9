import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { lowerFirst, toCamel } from '../src/identifier-case.js';
import { renameKeys } from './case.js';
import { listBody } from './list-envelope.js';
import { argumentInputType, includedRelations, pageVariables, sortVariables, whereVariables } from './query-params.js';
import type { RestRoute } from './route.js';

/** How one REST collection maps onto its GraphQL queries and mutations. */
export interface RestResource {
  /** Collection path below /api/v1, e.g. `/institutions`. */
  path: string;
  /** GraphQL names: `Institution` / `Institutions` (→ institution, institutions, createInstitution, ...). */
  name: string;
  pluralName: string;
  /** The REST representation as a GraphQL selection; embedded objects written `course { uuid name }`. */
  fields: string;
  /** `includes[relation]=1`: the full selection that replaces (or joins) the embedded one. */
  includes?: Record<string, string>;
  /** Legacy where paths → GraphQL where fields (`user.email` → `email`). */
  whereAliases?: Record<string, string>;
  /** Fields whose value is client JSON, passed through without renaming keys. */
  opaqueFields?: string[];
  /** Routes this collection does not document. */
  without?: ('replace' | 'batch')[];
  /**
   * Nested collections (`/courses/:courseUuid/modules/groups`): the path param naming the parent. It
   * filters the list, fills the create/replace input, and guards item operations (another parent's row is a 404).
   */
  parent?: string;
}

/** The selection for this request: embedded objects swapped for full records where included. */
export function selection(resource: RestResource, included: Set<string>): string {
  let fields = resource.fields;
  for (const relation of included) {
    const full = resource.includes![relation]!;
    const embedded = new RegExp(`\\b${relation}(?:: \\w+)? \\{[^{}]*\\}`);
    fields = embedded.test(fields) ? fields.replace(embedded, full) : `${fields} ${full}`;
  }
  return fields;
}

function includesOf(resource: RestResource, req: Request): Set<string> {
  return includedRelations(req.query, Object.keys(resource.includes ?? {}));
}

/** A JSON body as GraphQL input: snake_case → camelCase, keys the input type does not define dropped. */
export function bodyInput(
  req: Request,
  schema: GraphQLSchema,
  mutation: string,
  opaque: string[] = [],
  fromPath: Record<string, string> = {},
): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  const known = argumentInputType(schema, 'mutation', mutation, 'input').getFields();
  const renamed = { ...(renameKeys(body, toCamel, new Set(opaque)) as Record<string, unknown>), ...fromPath };
  return Object.fromEntries(Object.entries(renamed).filter(([key]) => key in known));
}

function parentOf(resource: RestResource, req: Request): Record<string, string> {
  return resource.parent ? { [resource.parent]: req.params[resource.parent] as string } : {};
}

/** list, get, create, PATCH, PUT, DELETE and batch destroy for one collection. */
export function resourceRoutes(resource: RestResource, schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const { name, pluralName, path } = resource;
  const one = lowerFirst(name);
  const many = lowerFirst(pluralName);
  const whereType = argumentInputType(schema, 'query', many, 'where');
  const sortType = argumentInputType(schema, 'query', many, 'sort');
  const guardDecl = resource.parent ? `, $${resource.parent}: ID` : '';
  // A nested list names its parent in the path: a parent that does not exist (or is another tenant's) is a 404.
  const parentDecl = resource.parent ? `, $${resource.parent}: ID!` : '';
  const parentCheck = resource.parent ? `parent: ${resource.parent.replace(/Uuid$/, '')}(uuid: $${resource.parent}) { uuid }` : '';
  const guardPass = resource.parent ? `, ${resource.parent}: $${resource.parent}` : '';
  const opaque = resource.opaqueFields ?? [];
  const present = (value: unknown) => ({ data: value });
  const input = (mutation: string) => (req: Request) => ({
    ...parentOf(resource, req),
    uuid: req.params.uuid,
    input: bodyInput(req, schema, mutation, opaque, parentOf(resource, req)),
  });
  const item = (req: Request) => ({ uuid: req.params.uuid, ...parentOf(resource, req) });

  const routes: RestRoute[] = [
    {
      method: 'get',
      path,
      document: (req) =>
        `query List($where: ${whereType.name}, $sort: ${sortType.name}, $first: Int, $after: String${parentDecl}) {
          ${parentCheck}
          result: ${many}(where: $where, sort: $sort, first: $first, after: $after) { totalCount nodes { ${selection(resource, includesOf(resource, req))} } }
        }`,
      variables: (req) => {
        const { page, perPage, ...paging } = pageVariables(req.query);
        const where = whereVariables(req.query, whereType, resource.whereAliases);
        const scoped = resource.parent ? { ...where, ...parentOf(resource, req) } : where;
        return { where: scoped, sort: sortVariables(req.query), ...paging, ...parentOf(resource, req) };
      },
      present: (result, req) => {
        const { total_count: totalCount, nodes } = result as { total_count: number; nodes: unknown[] };
        const { page, perPage } = pageVariables(req.query);
        return listBody(nodes, { page, perPage, total: totalCount }, `${publicBaseUrl}/api/v1`, req);
      },
    },
    {
      method: 'get',
      path: `${path}/:uuid`,
      document: (req) => `query One($uuid: ID!${guardDecl}) { result: ${one}(uuid: $uuid${guardPass}) { ${selection(resource, includesOf(resource, req))} } }`,
      variables: item,
      present,
    },
    {
      method: 'post',
      path,
      status: 201,
      document: `mutation Create($input: ${name}Input!) { result: create${name}(input: $input) { ${resource.fields} } }`,
      variables: input(`create${name}`),
      missingParentField: resource.parent,
      present,
    },
    {
      method: 'patch',
      path: `${path}/:uuid`,
      document: `mutation Update($uuid: ID!, $input: Update${name}Input!${guardDecl}) { result: update${name}(uuid: $uuid, input: $input${guardPass}) { ${resource.fields} } }`,
      variables: input(`update${name}`),
      present,
    },
    {
      method: 'delete',
      path: `${path}/batch/destroy`,
      status: 204,
      document: `mutation DeleteMany($uuids: [ID!]!) { result: delete${pluralName}(uuids: $uuids) }`,
      variables: (req) => ({ uuids: (req.body as { uuids?: unknown } | undefined)?.uuids }),
    },
    {
      method: 'delete',
      path: `${path}/:uuid`,
      status: 204,
      document: `mutation Delete($uuid: ID!${guardDecl}) { result: delete${name}(uuid: $uuid${guardPass}) }`,
      variables: item,
    },
  ];
  if (!resource.without?.includes('replace')) {
    routes.push({
      method: 'put',
      path: `${path}/:uuid`,
      document: `mutation Replace($uuid: ID!, $input: ${name}Input!${guardDecl}) { result: replace${name}(uuid: $uuid, input: $input${guardPass}) { ${resource.fields} } }`,
      variables: input(`replace${name}`),
      present,
    });
  }
  return resource.without?.includes('batch') ? routes.filter((route) => !route.path.endsWith('/batch/destroy')) : routes;
}
