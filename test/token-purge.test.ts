import { sha256Hex } from '../src/auth/secrets.js';
import { startTestService, provisionClient, requestToken, ApiClient, type TestService, type Credentials } from './support/service.js';
import { until } from './support/wait.js';

let service: TestService;
let credentials: Credentials;

beforeAll(async () => {
  service = await startTestService({ TOKEN_PURGE_MS: '100', TOKEN_PURGE_GRACE_SECONDS: '3600' });
  credentials = await provisionClient(service.orm, 'acme');
});
afterAll(() => service.stop());

async function token(): Promise<string> {
  const response = await requestToken(service.url, credentials);
  return ((await response.json()) as { access_token: string }).access_token;
}

const sql = (query: string, params: unknown[] = []) => service.orm.em.getConnection().execute(query, params);

describe('expired access tokens', () => {
  it('are deleted once expired for longer than the grace period; live and recently expired ones stay', async () => {
    const [old, recent, live] = [await token(), await token(), await token()];
    const [oldHash, recentHash, liveHash] = [old, recent, live].map(sha256Hex);
    const stored = await sql('select count(*)::int as n from oauth_access_tokens where token_hash in (?, ?, ?)', [oldHash, recentHash, liveHash]);
    expect(stored[0].n).toBe(3);

    await sql(`update oauth_access_tokens set expires_at = now() - interval '2 hours' where token_hash = ?`, [oldHash]);
    await sql(`update oauth_access_tokens set expires_at = now() - interval '10 minutes' where token_hash = ?`, [recentHash]);
    await until(async () => (await sql('select 1 from oauth_access_tokens where token_hash = ?', [oldHash])).length === 0, 'the old token purged');

    const remaining = await sql('select token_hash from oauth_access_tokens where token_hash in (?, ?, ?) order by token_hash', [
      oldHash,
      recentHash,
      liveHash,
    ]);
    expect(remaining.map((row) => row.token_hash)).toEqual([recentHash, liveHash].sort());
    expect((await new ApiClient(service.url, live, 'acme').rest('GET', '/whoami')).status).toBe(200);
    expect((await new ApiClient(service.url, recent, 'acme').rest('GET', '/whoami')).status).toBe(401);
  });
});
