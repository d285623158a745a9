import { ConfigError, loadConfig } from '../src/config.js';
import { routes } from '../rest-compat/routes.js';
import { createSchema } from '../src/graphql/schema.js';
import { PUBLIC_BASE_URL, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

const APP = 'https://app.example.org';

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  service = await startTestService({ CORS_ORIGINS: `${APP}, http://localhost:5173`, RATE_LIMIT_API_PER_MINUTE: '50' });
  api = await signIn(service, 'acme');
});
afterAll(() => service.stop());

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

describe('405 Method Not Allowed', () => {
  it('answers a known path asked with a method it lacks with 405 and Allow, before asking for a token', async () => {
    const response = await fetch(`${service.url}/api/v1/institutions`, { method: 'PATCH' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await response.json()).toEqual({ message: 'The PATCH method is not supported for route api/v1/institutions. Supported methods: GET, HEAD, POST.' });
  });

  it('derives Allow from the route table and the described routes for every documented path', async () => {
    const document = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const uuid = '00000000-0000-4000-8000-000000000000';
    const wrong: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      const methods = Object.keys(item).map((method) => method.toUpperCase());
      const missing = METHODS.find((method) => !methods.includes(method));
      if (!missing) continue;
      const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => (/uuid$/i.test(name) ? uuid : 'x'));
      const response = await fetch(`${service.url}${path}`, { method: missing });
      const allow = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
        (method) => methods.includes(method) || (method === 'HEAD' && methods.includes('GET')),
      );
      if (response.status !== 405 || response.headers.get('allow') !== allow.join(', '))
        wrong.push(`${missing} ${path}: ${response.status} ${response.headers.get('allow')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('matches paths as the routers do: any letter case, a trailing slash', async () => {
    const uuid = `${'2'.repeat(8)}-0000-4000-8000-000000000000`;
    for (const [method, path] of [
      ['PATCH', '/API/V1/Institutions'],
      ['PATCH', '/api/v1/institutions/'],
      ['POST', `/api/v1/INSTITUTIONS/${uuid}/`],
    ]) {
      const response = await fetch(`${service.url}${path}`, { method });
      expect([method, path, response.status]).toEqual([method, path, 405]);
    }
  });

  it('keeps 404 for unknown paths and lets the allowed methods through', async () => {
    expect((await fetch(`${service.url}/api/v1/nothing-here`, { method: 'PATCH' })).status).toBe(404);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/healthz`, { method: 'POST' })).headers.get('allow')).toBe('GET, HEAD');
    expect((await api.rest('GET', '/institutions')).status).toBe(200);
  });

  it('answers a plain OPTIONS (no CORS preflight) with 204 and Allow', async () => {
    const response = await fetch(`${service.url}/api/v1/certificates/${'1'.repeat(8)}-0000-4000-8000-000000000000/revoke`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('CORS', () => {
  const preflight = (origin: string, path = '/api/v1/institutions') =>
    fetch(`${service.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-tenant, content-type, idempotency-key' },
    });

  it('answers a preflight from a configured origin without a token', async () => {
    const response = await preflight(APP);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'x-tenant', 'content-type', 'idempotency-key']),
    );
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect((await preflight('http://localhost:5173', '/graphql')).headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('lets a configured origin read the rate-limit headers, Location and the request id', async () => {
    const response = await fetch(`${service.url}/api/v1/institutions`, { headers: { ...api.headers(), origin: APP } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Location', 'X-Request-Id']),
    );
    expect(response.headers.get('x-ratelimit-limit')).toBe('50');
  });

  it('gives any other origin nothing a browser would accept', async () => {
    const response = await preflight('https://evil.example.com');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${service.url}/api/v1/institutions`, { headers: { ...api.headers(), origin: 'https://evil.example.com' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers every origin with * when configured so, and none when unset', async () => {
    const open = await startTestService({ CORS_ORIGINS: '*' }, service.database);
    const closed = await startTestService({}, service.database);
    try {
      const anyOrigin = await fetch(`${open.url}/api/v1/institutions`, {
        method: 'OPTIONS',
        headers: { origin: 'https://x.example', 'access-control-request-method': 'GET' },
      });
      expect([anyOrigin.status, anyOrigin.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
      const none = await fetch(`${closed.url}/api/v1/institutions`, { headers: { origin: APP } });
      expect(none.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await Promise.all([open.stop(), closed.stop()]);
    }
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.org' })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.org/' })).toThrow(/not an origin: https:\/\/app.example.org\//);
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://localhost:5173 ' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });
});

describe('X-RateLimit headers', () => {
  it('count one budget per client across server processes, REST and GraphQL together', async () => {
    const other = await startTestService({ RATE_LIMIT_API_PER_MINUTE: '50' }, service.database);
    try {
      const remaining: number[] = [];
      for (const url of [service.url, other.url, service.url, other.url]) {
        const response = await fetch(`${url}/api/v1/whoami`, { headers: api.headers() });
        remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
        expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      }
      const graphql = await api.graphql('{ viewer { clientId } }');
      remaining.push(Number(graphql.headers.get('x-ratelimit-remaining')));
      expect(remaining.slice(1).map((value, index) => remaining[index]! - value)).toEqual([1, 1, 1, 1]);
    } finally {
      await other.stop();
    }
  });
});

describe('a multipart body with an empty boundary', () => {
  const body = '--\r\nContent-Disposition: form-data; name="file"; filename="x.pdf"\r\n\r\n%PDF-1.7\r\n----\r\n';

  const post = (path: string) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'multipart/form-data; boundary=' }, body });

  it.each(['/api/v1/verify', '/api/v1/badges/unbake', '/api/v1/badges/verify'])('is a 400 on the public upload %s', async (path) => {
    const response = await post(path);
    expect([response.status, await response.json()]).toEqual([400, { message: 'The multipart body could not be read.' }]);
  });

  it('is a 400 page on the verification page form', async () => {
    const response = await post('/verify');
    expect([response.status, response.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
  });

  it('is a 400 on the authenticated uploads, REST and GraphQL', async () => {
    const headers = api.headers({ 'content-type': 'multipart/form-data; boundary=', 'apollo-require-preflight': 'true' });
    const rest = await fetch(`${service.url}/api/v1/files`, { method: 'POST', headers, body });
    expect([rest.status, await rest.json()]).toEqual([400, { message: 'The multipart body could not be read.' }]);
    const graphql = await fetch(`${service.url}/graphql`, { method: 'POST', headers, body });
    expect(graphql.status).toBe(400);
    expect(((await graphql.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe('The multipart body could not be read.');
  });
});

describe('401 answers name the scheme (RFC 6750)', () => {
  it('REST and GraphQL: WWW-Authenticate Bearer without a token, with error="invalid_token" for a token that is not usable', async () => {
    const bare = await fetch(`${service.url}/api/v1/courses`, { headers: { 'x-tenant': 'acme' } });
    const bad = await fetch(`${service.url}/api/v1/courses`, { headers: { 'x-tenant': 'acme', authorization: 'Bearer nope' } });
    const graphqlBare = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'x-tenant': 'acme', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    const graphqlBad = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'x-tenant': 'acme', 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    expect([bare, bad, graphqlBare, graphqlBad].map((response) => [response.status, response.headers.get('www-authenticate')])).toEqual([
      [401, 'Bearer'],
      [401, 'Bearer error="invalid_token"'],
      [401, 'Bearer'],
      [401, 'Bearer error="invalid_token"'],
    ]);
    expect(await bad.json()).toEqual({ message: 'Unauthenticated.' });
    // The token endpoint authenticates clients, not tokens: Basic, and OAuth's error body.
    const token = await fetch(`${service.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'wrong-secret-wrong-secret' }),
    });
    expect([token.status, token.headers.get('www-authenticate'), token.headers.get('cache-control')]).toEqual([
      401,
      'Basic realm="credential-service"',
      'no-store',
    ]);
    expect(await token.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed', message: 'Client authentication failed' });
  });
});

describe('Location on 201 and 202', () => {
  it('names the created record’s URL, which reads it back, nested records included', async () => {
    const created = await api.rest('POST', '/institutions', { name: 'Located University', country: 'BR' });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toBe(`${PUBLIC_BASE_URL}/api/v1/institutions/${created.body.data.uuid}`);
    const read = await api.rest('GET', location.slice(`${PUBLIC_BASE_URL}/api/v1`.length));
    expect(read.body.data.name).toBe('Located University');
    const course = await api.rest('POST', '/courses', { name: 'Located Course', institution_uuid: created.body.data.uuid });
    const group = await api.rest('POST', `/courses/${course.body.data.uuid}/modules/groups`, { name: 'First year' });
    expect(group.status).toBe(201);
    expect(group.headers.get('location')).toBe(`${PUBLIC_BASE_URL}/api/v1/courses/${course.body.data.uuid}/modules/groups/${group.body.data.uuid}`);
  });

  it('every route that may answer 201 or 202 names what it created as one of the table’s GET routes', async () => {
    const table = routes(await createSchema(), PUBLIC_BASE_URL);
    const reads = new Set(table.filter((route) => route.method === 'get').map((route) => route.path));
    // A redelivery creates a delivery that has no GET of its own yet (the delivery log lists it).
    const withoutRead = new Set(['/webhooks/:webhookUuid/deliveries/:uuid/redeliver']);
    const creating = table.filter((route) => (route.status === 201 || typeof route.status === 'function') && !withoutRead.has(route.path));
    expect(creating.length).toBeGreaterThan(10);
    expect(
      creating.filter((route) => !route.location || !reads.has(route.location)).map((route) => `${route.method} ${route.path} → ${route.location}`),
    ).toEqual([]);
  });
});
