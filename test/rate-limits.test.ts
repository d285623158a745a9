import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.js';
import { REFUSAL_HOLD_MS } from '../src/rate-limits/http-limits.js';
import { RateLimitStore } from '../src/rate-limits/rate-limit.repository.js';
import { ApiClient, provisionClient, signIn, startTestService, type Credentials, type TestService, NO_BACKGROUND_WORK } from './support/service.js';

// Addresses come from X-Forwarded-For, which the first two services trust from loopback only.
const LIMITS = {
  TRUST_PROXY: 'loopback',
  TOKEN_FAILURE_LIMIT: '3',
  TOKEN_ADDRESS_FAILURE_LIMIT: '5',
  TOKEN_CLIENT_LIMIT: '2',
  RATE_LIMIT_API_PER_MINUTE: '3',
  RATE_LIMIT_VERIFY_PER_MINUTE: '2',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '2',
};

let first: TestService;
let second: TestService;

beforeAll(async () => {
  first = await startTestService(LIMITS);
  second = await startTestService(LIMITS, first.database);
});
afterAll(async () => {
  await second.stop();
  await first.stop();
});

function tokenFrom(service: TestService, { clientId, clientSecret }: Pick<Credentials, 'clientId' | 'clientSecret'>, address: string): Promise<Response> {
  return fetch(`${service.url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
}

const wrong = (credentials: Credentials) => ({ ...credentials, clientSecret: 'wrong-secret' });

async function statuses(count: number, send: (attempt: number) => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let attempt = 0; attempt < count; attempt++) seen.push((await send(attempt)).status);
  return seen;
}

describe('token endpoint limits', () => {
  it('count failed attempts made on two server processes together', async () => {
    const client = await provisionClient(first.orm, 'shared-count');
    const seen = await statuses(6, (attempt) => tokenFrom(attempt % 2 ? second : first, wrong(client), '198.51.100.1'));
    expect(seen).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('let the right secret through from another address while wrong secrets flood from one or many', async () => {
    const client = await provisionClient(first.orm, 'flooded');
    expect(await statuses(6, () => tokenFrom(first, wrong(client), '198.51.100.2'))).toEqual([401, 401, 401, 429, 429, 429]);
    const refused = await tokenFrom(first, client, '198.51.100.2');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: 'Too Many Attempts.' });
    for (let host = 10; host < 15; host++) {
      expect(await statuses(3, () => tokenFrom(second, wrong(client), `198.51.100.${host}`))).toEqual([401, 401, 401]);
    }
    const granted = await tokenFrom(first, client, '198.51.100.3');
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
  });

  it('stop one address guessing across client ids, without touching other addresses', async () => {
    const client = await provisionClient(first.orm, 'neighbour');
    const guess = () => ({ clientId: randomUUID(), clientSecret: 'guess' });
    expect(await statuses(6, () => tokenFrom(first, guess(), '198.51.100.4'))).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await tokenFrom(first, client, '198.51.100.4')).status).toBe(429);
    expect((await tokenFrom(first, client, '198.51.100.5')).status).toBe(200);
  });

  it('do not count successes as failures, and bound the tokens issued to one client', async () => {
    const [client, other] = [await provisionClient(first.orm, 'successful'), await provisionClient(first.orm, 'successful-too')];
    const address = '198.51.100.6';
    const attempts = [wrong(client), wrong(client), client, client, client];
    expect(await statuses(5, (attempt) => tokenFrom(attempt % 2 ? second : first, attempts[attempt]!, address))).toEqual([401, 401, 200, 200, 429]);
    expect((await tokenFrom(first, other, address)).status).toBe(200);
  });

  it('ignore X-Forwarded-For unless TRUST_PROXY names the proxy, so rotating it does not reset the count', async () => {
    const direct = await startTestService({ TOKEN_FAILURE_LIMIT: '3' });
    try {
      const client = await provisionClient(direct.orm, 'rotating');
      const seen = await statuses(5, (attempt) => tokenFrom(direct, wrong(client), `203.0.113.${attempt + 1}`));
      expect(seen).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await direct.stop();
    }
  });
});

describe('authenticated limits per client', () => {
  const resetIsAhead = (headers: Headers) => Number(headers.get('x-ratelimit-reset')) >= Math.floor(Date.now() / 1000);

  it('announce the REST budget, then answer 429 with Retry-After in the Laravel shape', async () => {
    const api = await signIn(first, 'rest-budget');
    const seen = [];
    for (let call = 0; call < 3; call++) {
      const response = await api.rest('GET', '/whoami');
      expect(response.status).toBe(200);
      expect(resetIsAhead(response.headers)).toBe(true);
      seen.push([response.headers.get('x-ratelimit-limit'), response.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen).toEqual([
      ['3', '2'],
      ['3', '1'],
      ['3', '0'],
    ]);
    const limited = await new ApiClient(second.url, api.token, api.tenant).rest('GET', '/whoami');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.' });
    // Written without Express's ETag (a hash of every refusal's body), its length exact.
    expect([limited.headers.get('etag'), limited.headers.get('content-length')]).toEqual([null, String(JSON.stringify(limited.body).length)]);
    expect(limited.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await api.graphql('{ viewer { clientId } }')).status).toBe(429);
    expect((await (await signIn(first, 'rest-neighbour')).rest('GET', '/whoami')).status).toBe(200);
  });

  it('count GraphQL operations and answer 429 with a GraphQL error body', async () => {
    const api = await signIn(first, 'graphql-budget');
    const remaining = [];
    for (let call = 0; call < 3; call++) {
      const response = await api.graphql('{ viewer { tenant { identifier } } }');
      expect(response.body).toEqual({ data: { viewer: { tenant: { identifier: 'graphql-budget' } } } });
      remaining.push(response.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await api.graphql('{ viewer { tenant { identifier } } }');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errors: [{ message: 'Too Many Attempts.', extensions: { code: 'TOO_MANY_REQUESTS' } }] });
    expect([limited.headers.get('etag'), limited.headers.get('content-type')]).toEqual([null, 'application/json; charset=utf-8']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('public limits per address', () => {
  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('hold POST /api/v1/verify to its own strict budget', async () => {
    const verify = (address: string) =>
      fetch(`${first.url}/api/v1/verify`, { method: 'POST', headers: { ...from(address), 'content-type': 'application/pdf' }, body: 'not a pdf' });
    const seen = await statuses(3, () => verify('192.0.2.1'));
    expect(seen.slice(0, 2).every((status) => status !== 429)).toBe(true);
    expect(seen[2]).toBe(429);
    expect((await verify('192.0.2.2')).status).not.toBe(429);
  });

  it('count the verification page, its JSON and file downloads together', async () => {
    const uuid = randomUUID();
    const paths = [`/verify/${uuid}`, `/api/v1/verify/${uuid}`, `/api/v1/files/${uuid}/download`];
    const seen = await statuses(3, (index) => fetch(`${second.url}${paths[index]}`, { headers: from('192.0.2.3') }));
    expect(seen).toEqual([404, 404, 429]);
    const limited = await fetch(`${first.url}${paths[0]}`, { headers: from('192.0.2.3') });
    expect([limited.status, limited.headers.get('x-ratelimit-remaining')]).toEqual([429, '0']);
    expect((await fetch(`${first.url}${paths[0]}`, { headers: from('192.0.2.4') })).status).toBe(404);
  });
});

describe('refusals this process already knows', () => {
  // Its own process on the same database, with nothing in the background to add statements.
  let quiet: TestService;
  beforeAll(async () => {
    quiet = await startTestService(
      {
        ...LIMITS,
        ...NO_BACKGROUND_WORK,
      },
      first.database,
    );
  });
  afterAll(() => quiet.stop());

  const statementsOf = async (send: () => Promise<{ status: number; headers: Headers }>) => {
    quiet.statements.length = 0;
    const { status, headers } = await send();
    const announced = ['x-ratelimit-limit', 'x-ratelimit-remaining'].map((name) => headers.get(name));
    return { status, announced, retryAfter: Number(headers.get('retry-after')), statements: quiet.statements.length };
  };

  it('are answered 429 with their headers and no statement, while the count stays shared with the other process', async () => {
    const api = new ApiClient(quiet.url, (await signIn(first, 'known-refusal')).token, 'known-refusal');
    for (let call = 0; call < 2; call++) expect((await api.rest('GET', '/whoami')).status).toBe(200);
    expect((await new ApiClient(second.url, api.token, api.tenant).rest('GET', '/whoami')).status).toBe(200);
    const learned = await statementsOf(() => api.rest('GET', '/whoami'));
    expect(learned).toMatchObject({ status: 429, announced: ['3', '0'] });
    expect(learned.statements).toBeGreaterThan(0);
    for (const send of [() => api.rest('GET', '/whoami'), () => api.graphql('{ viewer { clientId } }')]) {
      const known = await statementsOf(send);
      expect(known).toMatchObject({ status: 429, announced: ['3', '0'], statements: 0 });
      expect(known.retryAfter).toBeGreaterThanOrEqual(1);
      expect(known.retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('hold for public addresses too, and only for the refused address', async () => {
    const page = (address: string) => () => fetch(`${quiet.url}/verify/${randomUUID()}`, { headers: { 'x-forwarded-for': address } });
    expect((await page('192.0.2.20')()).status).toBe(404);
    expect((await page('192.0.2.20')()).status).toBe(404);
    expect(await statementsOf(page('192.0.2.20'))).toMatchObject({ status: 429, announced: ['2', '0'] });
    expect(await statementsOf(page('192.0.2.20'))).toMatchObject({ status: 429, announced: ['2', '0'], statements: 0 });
    expect((await page('192.0.2.21')()).status).toBe(404);
  });

  it('are held a moment before they are answered, so resending at once gains a client nothing', async () => {
    const page = () => fetch(`${quiet.url}/verify/${randomUUID()}`, { headers: { 'x-forwarded-for': '192.0.2.30' } });
    for (let sent = 0; sent < 3; sent++) await page();
    const started = performance.now();
    const held = await page();
    expect(held.status).toBe(429);
    // A timer never fires early: the lower bound is exact (less a millisecond of timer rounding).
    expect(performance.now() - started).toBeGreaterThanOrEqual(REFUSAL_HOLD_MS - 1);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('the bucket store', () => {
  it('deletes windows that have reset, so past keys do not pile up', async () => {
    const store = new RateLimitStore(first.orm, 0);
    await store.hit('test:short-lived', 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.hit('test:current', 60_000);
    const rows = await first.orm.em.getConnection().execute<{ key: string }[]>(`select key from rate_limit_buckets where key like 'test:%' order by key`);
    expect(rows.map((row) => row.key)).toEqual(['test:current']);
  });

  it('meters a key as a bucket that refills at its rate: refused past the burst at no cost, admitted again once it has drained', async () => {
    const store = new RateLimitStore(first.orm);
    const opened = await store.meter('test:metered', 6_000, 4_000);
    expect(opened.admitted).toBe(true);
    const refused = await store.meter('test:metered', 6_000, 4_000);
    expect(refused).toEqual({ admitted: false, fullAt: opened.fullAt });
    // A fixed window would stay spent until it resets; the bucket has room as soon as its debt is back within the burst.
    await new Promise((resolve) => setTimeout(resolve, opened.fullAt.getTime() - 4_000 - Date.now() + 50));
    const again = await store.meter('test:metered', 6_000, 4_000);
    expect(again).toEqual({ admitted: true, fullAt: new Date(opened.fullAt.getTime() + 6_000) });
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default, and takes a hop count or a list of proxies but never "true"', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,::1' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(ConfigError);
  });
});
