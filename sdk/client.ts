/**
 * A typed client of the REST API: openapi-fetch over the types `npm run sdk:generate` writes from the
 * service's OpenAPI document (sdk/openapi.d.ts). Paths, parameters, bodies and answers are checked by tsc.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './openapi.js';

export type { components, operations, paths } from './openapi.js';

/** Every call of the REST API, typed. */
export type CredentialClient = Client<paths>;

export interface ConnectOptions {
  /** The service's address, e.g. `https://credentials.example.org` (paths already start with `/api/v1`). */
  baseUrl: string;
  /** The tenant the client belongs to; sent as `X-Tenant`. */
  tenant: string;
  clientId: string;
  clientSecret: string;
}

/** The request's `Authorization` and `X-Tenant`, added to every call. */
const credentials = (token: string, tenant: string): Middleware => ({
  onRequest({ request }) {
    request.headers.set('Authorization', `Bearer ${token}`);
    request.headers.set('X-Tenant', tenant);
    return request;
  },
});

/** Asks a token (OAuth 2.0 client credentials) and answers a client that sends it with every call. */
export async function connect({ baseUrl, tenant, clientId, clientSecret }: ConnectOptions): Promise<CredentialClient> {
  const client = createClient<paths>({ baseUrl });
  const { data, error, response } = await client.POST('/api/v1/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    // Explicit: openapi-fetch's default picks the form encoding with an `instanceof Function` test that fails across realms (jest's vm).
    bodySerializer: (body) => new URLSearchParams(body).toString(),
  });
  if (!data) throw new Error(`token request answered ${response.status}: ${error?.message ?? 'no body'}`);
  client.use(credentials(data.access_token, tenant));
  return client;
}

/**
 * A `multipart/form-data` body: each array item its own part under the field's name (`files[]`), Blobs
 * as files. Pass as `bodySerializer` to calls whose body is multipart, e.g. `POST /api/v1/files`.
 */
export function multipart(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body))
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item instanceof Blob ? item : String(item));
  return form;
}
