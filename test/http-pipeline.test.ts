import http from 'node:http';
import { startTestService, signIn, PUBLIC_BASE_URL, type ApiClient, type TestService } from './support/service.js';
import { ClientService } from '../src/auth/client.service.js';
import { loadConfig } from '../src/config.js';
import { provision } from '../src/auth/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  service = await startTestService({ JSON_BODY_LIMIT: '2kb' });
  api = await signIn(service, 'acme');
});
afterAll(() => service.stop());

/** Raw HTTP, because fetch will not send a body with GET. */
function send(method: string, path: string, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${service.url}${path}`,
      { method, headers: { ...api.headers(), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('HTTP pipeline', () => {
  it('answers unknown REST routes with a JSON 404, before asking for a token', async () => {
    const response = await fetch(`${service.url}/api/v1/no-such-thing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not found.' });
  });

  it('answers unknown paths outside the API with a JSON 404 too', async () => {
    const response = await fetch(`${service.url}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not found.' });
  });

  it('answers malformed JSON with 400 and no stack trace', async () => {
    const response = await send('GET', '/api/v1/whoami', '{"broken": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'The request body is not valid JSON.' });
  });

  it('answers a JSON body over the limit with 413', async () => {
    const response = await send('GET', '/api/v1/whoami', JSON.stringify({ padding: 'x'.repeat(4096) }));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'The request body is too large.' });
  });

  it('echoes a given request id and generates one otherwise', async () => {
    const given = await api.rest('GET', '/whoami', undefined, { 'x-request-id': 'trace-123' });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const generated = await api.rest('GET', '/whoami');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports GraphQL document errors with Apollo codes and no internals', async () => {
    const response = await api.graphql('{ viewer { noSuchField } }');
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ message: expect.stringContaining('noSuchField'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(JSON.stringify(response.body)).not.toMatch(/stacktrace|at \w+ \(/);
  });

  it('keeps CSRF prevention on: a simple GET operation without a preflight header is refused', async () => {
    const response = await fetch(`${service.url}/graphql?query=${encodeURIComponent('{ viewer { clientId } }')}`, { headers: api.headers() });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('CSRF');
  });

  it('serves the Apollo Sandbox landing page to a browser without a token', async () => {
    const response = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('sandbox');
  });

  it('reports liveness and readiness', async () => {
    const live = await fetch(`${service.url}/healthz`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${service.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });
});

describe('startup provisioning', () => {
  const env = { NODE_ENV: 'test', DATABASE_URL: 'postgres://unused', PUBLIC_BASE_URL };

  it('creates the SEED_* tenant and client once and keeps them on every later start', async () => {
    const config = loadConfig({ ...env, SEED_TENANT: 'seeded', SEED_CLIENT_ID: 'seed-client', SEED_CLIENT_SECRET: 'a-long-enough-seed-secret' });
    const logger = createLogger('silent');
    await provision(service.orm, config, logger);
    await provision(service.orm, config, logger);
    const clients = (await new ClientService(service.orm.em.fork()).list()).filter((client) => client.tenant === 'seeded');
    expect(clients).toEqual([expect.objectContaining({ clientId: 'seed-client', revokedAt: null })]);
    const token = await fetch(`${service.url}/api/v1/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'seed-client', client_secret: 'a-long-enough-seed-secret' }),
    });
    expect(token.status).toBe(200);
  });

  it('refuses a partial SEED_* configuration', () => {
    expect(() => loadConfig({ ...env, SEED_TENANT: 'x' })).toThrow('must be set together');
  });
});

describe('logs', () => {
  it('record every request with its id but never the bearer token', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: service.database.url, PORT: '0', HOST: '127.0.0.1' });
    const logged = await startService(config, logger);
    try {
      await fetch(`${logged.url}/api/v1/whoami`, { headers: api.headers({ 'x-request-id': 'log-check-1' }) });
    } finally {
      await logged.stop();
    }
    const requestLine = lines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === 'log-check-1');
    expect(requestLine).toMatchObject({ method: 'GET', route: '/api/v1/whoami', status: 200, tenant: api.tenant });
    expect(requestLine).not.toHaveProperty('req'); // no headers dump (test/observability.test.ts)
    expect(lines.join('\n')).not.toContain(api.token);
  });
});
