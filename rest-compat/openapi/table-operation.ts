import {
  type DocumentNode,
  type FieldNode,
  getNamedType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  isInputObjectType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import type { Request } from 'express';
import type { JsonSchema } from '../../src/http/route-contract.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../src/db/paging.js';
import { toSnake } from '../case.js';
import type { RestRoute } from '../route.js';
import type { GraphqlJsonSchemas } from './graphql-json-schema.js';
import { errorResponses, RATE_LIMIT_HEADERS } from './shared-components.js';

export type OpenApiOperation = Record<string, unknown>;

/** Express `:name` params in path order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!);

/** `post` + `/courses/:uuid/revoke` → `postCoursesUuidRevoke`: unique while method + path are. */
export const operationId = (method: string, path: string): string =>
  `${method}${path.replace(/\/:?(\w)/g, (_match, letter: string) => letter.toUpperCase()).replace(/\W/g, '')}`;

/** `/courses/:courseUuid/modules` → `/courses/{courseUuid}/modules`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

/** The operation a route runs for a request asking for `includes` (every route's shape is buildable without a real request). */
function documentFor(route: RestRoute, includes: string[]): DocumentNode {
  if (typeof route.document !== 'function') return route.document;
  return route.document({ query: { includes: Object.fromEntries(includes.map((relation) => [relation, '1'])) } } as unknown as Request);
}

const operationOf = (document: DocumentNode) =>
  document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;

function resultField(operation: OperationDefinitionNode): FieldNode {
  return operation.selectionSet.selections.find((node): node is FieldNode => node.kind === Kind.FIELD && node.alias?.value === 'result')!;
}

function rootDefinition(schema: GraphQLSchema, operation: OperationDefinitionNode, node: FieldNode): GraphQLField<unknown, unknown> {
  const root = operation.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  return root.getFields()[node.name.value]!;
}

function variableTypes(schema: GraphQLSchema, operation: OperationDefinitionNode): Map<string, GraphQLInputType> {
  return new Map(
    (operation.variableDefinitions ?? []).map((definition) => [
      definition.variable.name.value,
      typeFromAST(schema, definition.type as never) as GraphQLInputType,
    ]),
  );
}

const subField = (node: FieldNode, name: string) =>
  node.selectionSet?.selections.find((child): child is FieldNode => child.kind === Kind.FIELD && child.name.value === name);

/** `sort[column]=name&sort[order]=desc`, `where[field]=value`, `includes[relation]=1`: deepObject parameters. */
function deepObject(name: string, description: string, schema: JsonSchema): JsonSchema {
  return { name, in: 'query', description, style: 'deepObject', explode: true, schema };
}

function listParameters(schemas: GraphqlJsonSchemas, variables: Map<string, GraphQLInputType>): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const where = variables.get('where');
  const whereType = where && getNamedType(where);
  if (whereType && isInputObjectType(whereType)) {
    // REST names a field once: `where[status]=v` (equality) and `where[status][in]=a,b` (its `statusIs` operators).
    const properties: Record<string, JsonSchema> = {};
    for (const field of Object.values(whereType.getFields())) {
      const operators = isInputObjectType(getNamedType(field.type));
      const name = toSnake(operators ? field.name.replace(/Is$/, '') : field.name);
      const schema = { ...schemas.input(field.type), ...(field.description ? { description: field.description } : {}) };
      properties[name] = properties[name] ? { anyOf: [properties[name], schema] } : schema;
    }
    parameters.push(
      deepObject(
        'where',
        'Filters, all of which must hold: `where[field]=value` (equality; `null` matches empty values) or `where[field][operator]=value` with `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in` (comma-separated or repeated `in[]`), `null` (`true`/`false`) and, on text, `contains` (case-insensitive). Unknown fields or operators are a 422 naming them.',
        { type: 'object', properties, additionalProperties: false },
      ),
    );
  }
  const sort = variables.get('sort');
  if (sort) parameters.push(deepObject('sort', '`sort[column]=...&sort[order]=asc|desc`.', schemas.requiredInput(sort)));
  parameters.push(
    { name: 'page', in: 'query', description: 'Page number, from 1.', schema: { type: 'integer', minimum: 1, default: 1 } },
    {
      name: 'cursor',
      in: 'query',
      description:
        'Keyset paging instead of page numbers: empty for the first page, then the cursor of `links.next` or `links.prev`. Rows written meanwhile never make a page repeat or skip a row. Not with `page`; the cursor must come from a list with the same sort.',
      schema: { type: 'string' },
    },
    {
      name: 'per_page',
      in: 'query',
      description: `Page size, 1-${MAX_PAGE_SIZE}.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
    },
  );
  return parameters;
}

function includesParameter(includes: string[]): JsonSchema {
  const properties = Object.fromEntries(includes.map((relation) => [relation, { type: 'string', enum: ['1', 'true'] }]));
  return deepObject('includes', `Embed related records in full: ${includes.map((relation) => `\`includes[${relation}]=1\``).join(', ')}.`, {
    type: 'object',
    properties,
    additionalProperties: false,
  });
}

/** The JSON (or multipart) body a route reads, from the operation's `input`/`files` argument or the route's named body members. */
function requestBody(route: RestRoute, schemas: GraphqlJsonSchemas, variables: Map<string, GraphQLInputType>): JsonSchema | undefined {
  const input = variables.get('input');
  if (input) {
    const fromPath = new Set(pathParams(route.path));
    return { required: true, content: { 'application/json': { schema: schemas.requiredInput(input, fromPath) } } };
  }
  if (variables.has('files')) {
    const schema = {
      type: 'object',
      properties: { 'files[]': { type: 'array', items: { type: 'string', format: 'binary' }, description: 'One or more PDF, PNG or SVG files.' } },
      required: ['files[]'],
    };
    return { required: true, content: { 'multipart/form-data': { schema } } };
  }
  const members = Object.entries(route.docs?.body ?? {});
  if (members.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, variable] of members) {
    const type = variables.get(variable)!;
    properties[key] = schemas.input(type);
    if (type.toString().endsWith('!')) {
      properties[key] = schemas.requiredInput(type);
      required.push(key);
    }
  }
  return { required: true, content: { 'application/json': { schema: { type: 'object', properties, required } } } };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The success answer: Laravel's paginator for connections, `{data}` otherwise, nothing for 204. */
function successResponse(route: RestRoute, schema: GraphQLSchema, schemas: GraphqlJsonSchemas): JsonSchema {
  const status = route.status ?? 200;
  const headers = RATE_LIMIT_HEADERS;
  if (status === 204) return { description: 'Done; no body.', headers };
  const full = operationOf(documentFor(route, route.docs?.includes ?? []));
  const base = operationOf(documentFor(route, []));
  const node = resultField(full);
  const definition = rootDefinition(schema, full, node);
  const baseKeys = (field: FieldNode | undefined) =>
    new Set((field?.selectionSet?.selections ?? []).flatMap((child) => (child.kind === Kind.FIELD ? [child.alias?.value ?? child.name.value] : [])));
  const nodes = subField(node, 'nodes');
  let body: JsonSchema;
  if (nodes) {
    const connection = getNamedType(definition.type) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
    const item = schemas.output(connection.getFields().nodes!.type, nodes.selectionSet, baseKeys(subField(resultField(base), 'nodes')));
    body = { type: 'object', properties: { data: item, meta: ref('PaginationMeta'), links: ref('PaginationLinks') }, required: ['data', 'meta', 'links'] };
  } else if (route.docs?.dataField) {
    const field = node.selectionSet?.selections.find((child): child is FieldNode => child.kind === Kind.FIELD && child.alias?.value === route.docs!.dataField);
    const owner = getNamedType(definition.type) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
    const fieldDefinition = owner.getFields()[field?.name.value ?? ''];
    body = {
      type: 'object',
      properties: { data: { type: 'object', ...(fieldDefinition?.description ? { description: fieldDefinition.description } : {}) } },
      required: ['data'],
    };
  } else {
    const data = schemas.output(definition.type, node.selectionSet, baseKeys(resultField(base)));
    body = { type: 'object', properties: { data }, required: ['data'] };
  }
  return { description: status === 201 ? 'Created.' : 'OK.', headers, content: { 'application/json': { schema: body } } };
}

const sentence = (name: string) => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words[0]!.toUpperCase() + words.slice(1);
};

/** The tag a route is listed under: its first path segment (`/courses/...` → `courses`). */
const tagOf = (path: string): string => path.split('/').find(Boolean) ?? 'api';

/** One route of the REST table as an OpenAPI operation (authenticated: bearer token and X-Tenant). */
export function tableOperation(route: RestRoute, schema: GraphQLSchema, schemas: GraphqlJsonSchemas): OpenApiOperation {
  const operation = operationOf(documentFor(route, []));
  const root = rootDefinition(schema, operation, resultField(operation));
  const variables = variableTypes(schema, operation);
  const isList = variables.has('where') || variables.has('first');
  const parameters: JsonSchema[] = pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }));
  if (isList) parameters.push(...listParameters(schemas, variables));
  if (route.docs?.includes?.length) parameters.push(includesParameter(route.docs.includes));
  const body = requestBody(route, schemas, variables);
  // A read of one field (a badge document) is named after the field.
  const readName = route.docs?.dataField ? route.docs.dataField.replace(/_(\w)/g, (_match, letter: string) => letter.toUpperCase()) : root.name;
  return {
    operationId: operationId(route.method, route.path),
    summary: route.method === 'get' ? `${isList ? 'List' : 'Get'} ${sentence(readName).toLowerCase()}` : sentence(root.name),
    description: [root.description, `Runs the GraphQL ${operation.operation} \`${root.name}\`.`].filter(Boolean).join('\n\n'),
    tags: [tagOf(route.path)],
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: {
      // A result-decided status (a batch: 200 done inline, 202 queued as a job) lists both.
      ...Object.fromEntries(
        (typeof route.status === 'function' ? [200, 202] : [route.status ?? 200]).map((status) => [status, successResponse(route, schema, schemas)]),
      ),
      ...errorResponses({
        authenticated: true,
        item: pathParams(route.path).length > 0,
        validates: Boolean(body) || isList || Boolean(route.docs?.includes?.length),
        conflicts: route.method !== 'get',
        upload: variables.has('files'),
      }),
    },
  };
}
