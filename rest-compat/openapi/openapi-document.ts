import type { GraphQLSchema } from 'graphql';
import type { JsonSchema, RouteContract } from '../../src/http/route-contract.js';
import type { RestRoute } from '../route.js';
import { GraphqlJsonSchemas } from './graphql-json-schema.js';
import { SHARED_SCHEMAS } from './shared-components.js';
import { openApiPath, operationId, pathParams, tableOperation } from './table-operation.js';

/** The REST table is mounted here (src/app.ts). */
export const API_BASE = '/api/v1';

/** Every route the service documents: the REST table (authenticated) and the hand-written public ones. */
export interface ApiSurface {
  table: RestRoute[];
  contracts: RouteContract[];
}

/** Every route as Express registers it (full path), for the 405 answer and the tests. */
const DESCRIPTION = `Multi-tenant academic credentials. Every path below \`/api/v1\` but the public ones runs one GraphQL
operation of the same schema \`/graphql\` serves, so rules, validation and errors are the same in both styles.

**Authentication.** Ask \`POST /api/v1/oauth/token\` for a token (\`grant_type=client_credentials\`, form-encoded,
client id and secret as HTTP Basic or form fields), then send \`Authorization: Bearer <token>\` and \`X-Tenant: <tenant>\`
with every call. In this page: *Authorize* takes both.

**Errors** are Laravel-shaped: \`{"message"}\`, and for a 422 every failing field at once under \`errors\`.

**Rate limits.** Authenticated answers carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`
(per client, per minute, shared by every server process); past the limit: 429 with \`Retry-After\`.

**Methods.** A known path asked with a method it does not have answers 405 with \`Allow\`.`;

const contractParameters = (contract: RouteContract): JsonSchema[] => [
  ...pathParams(contract.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: /uuid$/i.test(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
  })),
  ...Object.entries(contract.query ?? {}).map(([name, { description, schema }]) => ({ name, in: 'query', description, schema })),
];

function contractOperation(contract: RouteContract): JsonSchema {
  const parameters = contractParameters(contract);
  const responses = Object.fromEntries(
    Object.entries(contract.responses).map(([status, response]) => [
      status,
      {
        description: response.description,
        ...(response.headers ? { headers: response.headers } : {}),
        ...(response.content ? { content: Object.fromEntries(Object.entries(response.content).map(([type, schema]) => [type, { schema }])) } : {}),
      },
    ]),
  );
  return {
    operationId: operationId(contract.method, contract.path),
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [contract.tag],
    ...(contract.authenticated ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(contract.requestBody
      ? {
          requestBody: {
            ...(contract.requestBody.description ? { description: contract.requestBody.description } : {}),
            required: contract.requestBody.required,
            content: Object.fromEntries(Object.entries(contract.requestBody.content).map(([type, schema]) => [type, { schema }])),
          },
        }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route table (each route's GraphQL
 * operation gives its parameters, body and answer) and the contracts of the hand-written routes.
 */
export function openApiDocument(schema: GraphQLSchema, publicBaseUrl: string, surface: ApiSurface, tokenRoute: RouteContract): Record<string, unknown> {
  const schemas = new GraphqlJsonSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, operation: unknown) => {
    (paths[openApiPath(path)] ??= {})[method] = operation;
  };
  for (const route of surface.table) add(`${API_BASE}${route.path}`, route.method, tableOperation(route, schema, schemas));
  for (const contract of surface.contracts) add(`${contract.base}${contract.path}`, contract.method, contractOperation(contract));
  const tags = [...new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation as { tags: string[] }).tags)))];
  return {
    openapi: '3.1.1',
    info: { title: 'Credential service REST API', version: '1', description: DESCRIPTION },
    servers: [{ url: publicBaseUrl }],
    tags: tags.sort().map((name) => ({ name })),
    security: [{ clientCredentials: [], tenant: [] }],
    paths,
    components: {
      securitySchemes: {
        clientCredentials: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials; the token is opaque and lasts `expires_in` seconds.',
          flows: { clientCredentials: { tokenUrl: `${publicBaseUrl}${tokenRoute.base}${tokenRoute.path}`, scopes: {} } },
        },
        tenant: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Tenant',
          description: "The identifier of the token's tenant; required with every authenticated call.",
        },
      },
      schemas: { ...SHARED_SCHEMAS, ...schemas.components },
    },
  };
}
