/**
 * The declarative description of an HTTP route written by hand (outside the REST route table): the
 * router registers `method` + `path` from it and the OpenAPI document (rest-compat/openapi/) reads
 * the rest, so the two cannot disagree. Schemas are JSON Schema 2020-12, as OpenAPI 3.1 embeds it.
 */
export type JsonSchema = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ContractResponse {
  description: string;
  /** Media type → schema; omitted for bodiless answers (204, redirects). */
  content?: Record<string, JsonSchema>;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

export interface RouteContract {
  method: HttpMethod;
  /** Where the router holding the route is mounted (`/api/v1`, or `` at the root). */
  base: string;
  /** The Express path as the router registers it (`/verify/:uuid`). */
  path: string;
  summary: string;
  description?: string;
  /** The group it is listed under in the docs. */
  tag: string;
  /** Hand-written routes are public (no token, no X-Tenant) unless this says they take the REST table's authentication. */
  authenticated?: boolean;
  query?: Record<string, { description: string; schema: JsonSchema }>;
  requestBody?: { description?: string; required: boolean; content: Record<string, JsonSchema> };
  responses: Record<number, ContractResponse>;
}

export const describeRoute = (contract: RouteContract): RouteContract => contract;

/** The Laravel-shaped error body every route answers with (src/http/error-response.ts). */
export const ERROR_BODY: JsonSchema = { $ref: '#/components/schemas/Error' };

export const jsonError = (description: string): ContractResponse => ({ description, content: { 'application/json': ERROR_BODY } });

export const TOO_MANY_REQUESTS = jsonError('Rate limit of this address reached; `Retry-After` says when to come back.');

/** A PDF or image sent raw (its media type) or as the one file of a multipart form. */
export const singleFileBody = (mediaTypes: string[], description: string): RouteContract['requestBody'] => ({
  description,
  required: true,
  content: {
    ...Object.fromEntries(mediaTypes.map((type) => [type, { type: 'string', format: 'binary' }])),
    'multipart/form-data': { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
  },
});
