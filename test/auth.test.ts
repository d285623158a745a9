import { ClientService } from '../src/auth/client.service.js';
import { startTestService, provisionClient, requestToken, ApiClient, type TestService, type Credentials } from './support/service.js';

let service: TestService;
let credentials: Credentials;

beforeAll(async () => {
  service = await startTestService();
  credentials = await provisionClient(service.orm, 'acme');
});
afterAll(() => service.stop());

async function token(creds: Credentials = credentials): Promise<string> {
  const response = await requestToken(service.url, creds);
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

const whoami = (client: ApiClient) => client.rest('GET', '/whoami');

describe('token endpoint', () => {
  it('issues an opaque 12-hour bearer token for valid client credentials', async () => {
    const response = await requestToken(service.url, credentials);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toEqual({ token_type: 'Bearer', expires_in: 43200, access_token: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/) });
  });

  it('stores only a hash of the token and of the client secret', async () => {
    const accessToken = await token();
    const rows = await service.orm.em.getConnection().execute(
      `select (select count(*) from oauth_access_tokens where token_hash = ?) as token_in_clear,
              (select count(*) from oauth_clients where secret_hash = ?) as secret_in_clear`,
      [accessToken, credentials.clientSecret],
    );
    expect(rows[0]).toEqual({ token_in_clear: '0', secret_in_clear: '0' });
  });

  it('answers a wrong secret with 401 invalid_client and the documented body', async () => {
    const response = await requestToken(service.url, { ...credentials, clientSecret: 'not-the-secret' });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'Client authentication failed',
      message: 'Client authentication failed',
    });
  });

  it('answers an unknown client the same way as a wrong secret', async () => {
    const response = await requestToken(service.url, { ...credentials, clientId: 'client_unknown' });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('rejects any grant type but client_credentials with 400 unsupported_grant_type', async () => {
    const response = await fetch(`${service.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        username: 'x',
        password: 'y',
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'unsupported_grant_type', message: expect.any(String) });
  });

  it('rejects a request without grant_type with 400 invalid_request', async () => {
    const response = await fetch(`${service.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: credentials.clientId, client_secret: credentials.clientSecret }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('authenticated requests', () => {
  it('reach the core with a valid token and the matching X-Tenant', async () => {
    const response = await whoami(new ApiClient(service.url, await token(), 'acme'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { client_id: credentials.clientId, tenant: { identifier: 'acme', name: 'acme' } } });
  });

  it.each([
    ['no token', {}],
    ['a garbage token', { authorization: 'Bearer not-a-token' }],
    ['a non-bearer scheme', { authorization: 'Basic YTpi' }],
  ])('answer %s with 401 Unauthenticated.', async (_case, headers) => {
    const response = await fetch(`${service.url}/api/v1/whoami`, { headers: { 'x-tenant': 'acme', ...headers } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Unauthenticated.' });
  });

  it('answer an expired token with 401', async () => {
    const accessToken = await token();
    await service.orm.em.getConnection().execute(`update oauth_access_tokens set expires_at = now() - interval '1 second'`);
    const response = await whoami(new ApiClient(service.url, accessToken, 'acme'));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('answer a missing X-Tenant with 400, checked after the token', async () => {
    const response = await fetch(`${service.url}/api/v1/whoami`, { headers: { authorization: `Bearer ${await token()}` } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'The X-Tenant header is required.' });
  });

  it.each([
    ['another existing tenant', 'globex'],
    ['an unknown tenant', 'nobody'],
  ])('answer %s in X-Tenant with 403', async (_case, tenant) => {
    await provisionClient(service.orm, 'globex');
    const response = await whoami(new ApiClient(service.url, await token(), tenant));
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: 'This token is not valid for the requested tenant.' });
  });

  it('apply the same checks to GraphQL, in the GraphQL error shape', async () => {
    const noToken = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] });
    const wrongTenant = await new ApiClient(service.url, await token(), 'globex').graphql('{ viewer { clientId } }');
    expect(wrongTenant.status).toBe(403);
    expect(wrongTenant.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const ok = await new ApiClient(service.url, await token(), 'acme').graphql('{ viewer { clientId tenant { identifier } } }');
    expect(ok.body).toEqual({ data: { viewer: { clientId: credentials.clientId, tenant: { identifier: 'acme' } } } });
  });
});

describe('client rotation', () => {
  it('revokes every token of the old pair at once, on every server process', async () => {
    const pair = await provisionClient(service.orm, 'rotating');
    const oldTokens = [await token(pair), await token(pair)];
    const secondProcess = await startTestService({}, service.database);
    try {
      for (const base of [service.url, secondProcess.url]) {
        expect((await whoami(new ApiClient(base, oldTokens[0]!, 'rotating'))).status).toBe(200);
      }
      const fresh = await new ClientService(service.orm.em.fork()).rotate(pair.clientId);

      for (const base of [service.url, secondProcess.url]) {
        for (const old of oldTokens) expect((await whoami(new ApiClient(base, old, 'rotating'))).status).toBe(401);
      }
      expect((await requestToken(service.url, pair)).status).toBe(401);
      const newToken = await token(fresh);
      expect((await whoami(new ApiClient(secondProcess.url, newToken, 'rotating'))).body.data.client_id).toBe(fresh.clientId);
    } finally {
      await secondProcess.stop();
    }
  });
});

describe('token endpoint throttling', () => {
  it('answers 429 with Retry-After past the per-minute limit of one client address', async () => {
    const throttled = await startTestService({ TOKEN_RATE_LIMIT: '3' });
    try {
      const pair = await provisionClient(throttled.orm, 'throttled');
      const statuses = [];
      for (let attempt = 0; attempt < 4; attempt++) statuses.push((await requestToken(throttled.url, { ...pair, clientSecret: 'guess' })).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const limited = await requestToken(throttled.url, pair);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await limited.json()).toEqual({ message: 'Too Many Attempts.' });
    } finally {
      await throttled.stop();
    }
  });
});
