import type { Request } from 'express';
import type { DocumentNode, FieldNode, GraphQLSchema } from 'graphql';
import { lowerFirst, toCamel } from '../src/identifier-case.js';
import { renameKeys, toSnake } from './case.js';
import { LIST_FIELDS, listBody, type ListResult } from './list-envelope.js';
import { buildOperation, type RootField } from './operation.js';
import { argumentInputType, includedRelations, listPaging, sortVariables, whereVariables } from './query-params.js';
import type { RestRoute } from './route.js';
import { field, fields, nest, relationArrays, responseKey, type Selection, type SelectionSource, withIncluded } from './selection.js';

/** How one REST collection maps onto its GraphQL queries and mutations. */
export interface RestResource {
  /** Collection path below /api/v1, e.g. `/institutions`. */
  path: string;
  /** GraphQL names: `Institution` / `Institutions` (→ institution, institutions, createInstitution, ...). */
  name: string;
  pluralName: string;
  /** The REST representation as a GraphQL selection; embedded objects written `course { uuid name }`. */
  fields: SelectionSource;
  /** `includes[relation]=1`: the full field that replaces the embedded one answering under the same key (or joins the selection). */
  includes?: Record<string, string | FieldNode>;
  /** Legacy where paths → GraphQL where fields (`user.email` → `email`). */
  whereAliases?: Record<string, string>;
  /** Fields whose value is client JSON, passed through without renaming keys. */
  opaqueFields?: string[];
  /** Routes this collection does not document (files are created by upload, not by JSON). */
  without?: ('create' | 'replace' | 'batch')[];
  /**
   * Nested collections (`/courses/:courseUuid/modules/groups`): the path param naming the parent. It
   * filters the list, fills the create/replace input, and guards item operations (another parent's row is a 404).
   */
  parent?: string;
}

/** A JSON body as GraphQL input: snake_case → camelCase, keys the input type does not define dropped. */
export function bodyInput(
  req: Request,
  schema: GraphQLSchema,
  mutation: string,
  opaque: string[] = [],
  fromPath: Record<string, string> = {},
): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as object) : {};
  return objectInput(body, schema, mutation, opaque, fromPath);
}

/** One JSON object as the `input` of `mutation` (bodyInput's rule, also for each item of a batch). */
export function objectInput(
  body: object,
  schema: GraphQLSchema,
  mutation: string,
  opaque: string[] = [],
  fromPath: Record<string, string> = {},
): Record<string, unknown> {
  const known = argumentInputType(schema, 'mutation', mutation, 'input').getFields();
  const renamed = { ...(renameKeys(body, toCamel, new Set(opaque)) as Record<string, unknown>), ...fromPath };
  return Object.fromEntries(Object.entries(renamed).filter(([key]) => key in known));
}

function parentOf(resource: RestResource, req: Request): Record<string, string> {
  return resource.parent ? { [resource.parent]: req.params[resource.parent] as string } : {};
}

/**
 * The reads of a collection whose selection `includes[...]` shapes: one operation per requested
 * list of relations, built (and validated) once. The base shape, each include alone and all of
 * them together are built with the route table, so a broken include stops the service at boot.
 */
export function shapedReads(resource: RestResource, build: (selection: Selection) => DocumentNode): (req: Request) => DocumentNode {
  const base = fields(resource.fields);
  const includes = Object.fromEntries(Object.entries(resource.includes ?? {}).map(([relation, source]) => [relation, field(source)]));
  const allowed = Object.keys(includes);
  const shapes = new Map<string, DocumentNode>();
  const shape = (relations: string[]) => {
    const key = relations.join(',');
    let document = shapes.get(key);
    if (!document)
      shapes.set(
        key,
        (document = build(
          withIncluded(
            base,
            relations.map((relation) => includes[relation]!),
          ),
        )),
      );
    return document;
  };
  for (const relations of [[], ...allowed.map((relation) => [relation]), allowed]) shape(relations);
  return (req) => shape([...includedRelations(req.query, allowed)]);
}

/** list, get, create, PATCH, PUT, DELETE and batch destroy for one collection. */
export function resourceRoutes(resource: RestResource, schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  const { name, pluralName, path, parent } = resource;
  const one = lowerFirst(name);
  const many = lowerFirst(pluralName);
  const whereType = argumentInputType(schema, 'query', many, 'where');
  const selection = fields(resource.fields);
  const opaque = resource.opaqueFields ?? [];
  // Relations included as connections (`nestRows`) answer as arrays of their rows.
  const included = Object.values(resource.includes ?? {}).map((source) => field(source));
  const asRest = (records: unknown) => relationArrays(records, included, (node) => toSnake(responseKey(node)));
  const present = (value: unknown) => ({ data: value });
  const input = (mutation: string) => (req: Request) => ({
    ...parentOf(resource, req),
    uuid: req.params.uuid,
    input: bodyInput(req, schema, mutation, opaque, parentOf(resource, req)),
  });
  const item = (req: Request) => ({ uuid: req.params.uuid, ...parentOf(resource, req) });
  const mutation = (route: string, operation: string, root: string, withSelection = true) =>
    buildOperation(schema, { type: 'mutation', name: operation, route, fields: [{ field: root, alias: 'result', ...(withSelection ? { selection } : {}) }] });
  // A nested list names its parent in the path: a parent that does not exist (or is another tenant's) is a 404.
  const parentCheck: RootField[] = parent
    ? [{ field: parent.replace(/Uuid$/, ''), alias: 'parent', variables: { uuid: parent }, selection: fields('uuid') }]
    : [];

  const createRoute = (): RestRoute => ({
    method: 'post',
    path,
    status: 201,
    location: `${path}/:uuid`,
    document: mutation(`POST ${path}`, 'Create', `create${name}`),
    variables: input(`create${name}`),
    missingParentField: parent,
    present,
  });
  const batchDestroy = (): RestRoute => ({
    method: 'delete',
    path: `${path}/batch/destroy`,
    status: 204,
    document: mutation(`DELETE ${path}/batch/destroy`, 'DeleteMany', `delete${pluralName}`, false),
    variables: (req) => ({ uuids: (req.body as { uuids?: unknown } | undefined)?.uuids }),
    docs: { body: { uuids: 'uuids' } },
  });
  const replaceRoute = (): RestRoute => ({
    method: 'put',
    path: `${path}/:uuid`,
    document: mutation(`PUT ${path}/:uuid`, 'Replace', `replace${name}`),
    variables: input(`replace${name}`),
    present,
  });
  const has = (route: 'create' | 'replace' | 'batch') => !resource.without?.includes(route);
  const reads = { includes: Object.keys(resource.includes ?? {}) };
  return [
    {
      method: 'get',
      path,
      document: shapedReads(resource, (nodes) =>
        buildOperation(schema, {
          type: 'query',
          name: 'List',
          route: `GET ${path}`,
          fields: [...parentCheck, { field: many, alias: 'result', selection: fields(LIST_FIELDS).concat(nest('nodes', nodes)) }],
        }),
      ),
      variables: (req) => {
        const { variables: paging } = listPaging(req.query);
        const where = whereVariables(req.query, whereType, resource.whereAliases);
        const scoped = parent ? { ...where, ...parentOf(resource, req) } : where;
        return { where: scoped, sort: sortVariables(req.query), ...paging, ...parentOf(resource, req) };
      },
      present: (result, req) => {
        const list = result as ListResult & { nodes: unknown[] };
        return listBody(asRest(list.nodes) as unknown[], listPaging(req.query).paging, list, `${publicBaseUrl}/api/v1`, req);
      },
      docs: reads,
    },
    {
      method: 'get',
      path: `${path}/:uuid`,
      document: shapedReads(resource, (nodes) =>
        buildOperation(schema, { type: 'query', name: 'One', route: `GET ${path}/:uuid`, fields: [{ field: one, alias: 'result', selection: nodes }] }),
      ),
      variables: item,
      present: (result) => present(asRest(result)),
      docs: reads,
    },
    ...(has('create') ? [createRoute()] : []),
    {
      method: 'patch',
      path: `${path}/:uuid`,
      document: mutation(`PATCH ${path}/:uuid`, 'Update', `update${name}`),
      variables: input(`update${name}`),
      present,
    },
    // Before `${path}/:uuid`, so Express does not take `batch` for a uuid.
    ...(has('batch') ? [batchDestroy()] : []),
    {
      method: 'delete',
      path: `${path}/:uuid`,
      status: 204,
      document: mutation(`DELETE ${path}/:uuid`, 'Delete', `delete${name}`, false),
      variables: item,
    },
    ...(has('replace') ? [replaceRoute()] : []),
  ];
}
