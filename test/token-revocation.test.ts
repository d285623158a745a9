import { spawn, type ChildProcess } from 'node:child_process';
import { ClientService } from '../src/auth/client.service.js';
import { factories } from './support/factories.js';
import { ApiClient, PUBLIC_BASE_URL, signIn, startTestService, type TestService } from './support/service.js';
import { freePort, until } from './support/wait.js';

/**
 * A request's token is resolved by the authentication middleware, before the request's first query:
 * from the process's principal cache, else by one indexed lookup. Revoking evicts the cache on every
 * process (a NOTIFY from the database's triggers, src/auth/principal-revocations.ts).
 */
let service: TestService;
let other: { child: ChildProcess; url: string; output: string; exited: Promise<unknown> };

const QUIET = { NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0', JOB_WORKER: 'off', IDEMPOTENCY_SWEEP_MS: '0' };

beforeAll(async () => {
  service = await startTestService(QUIET);
  // A second service process on the same database.
  const port = await freePort();
  const env = {
    PATH: process.env.PATH!,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: service.database.url,
    DATABASE_MIGRATION_URL: service.database.ownerUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL,
    RATE_LIMIT_API_PER_MINUTE: '0',
    ...QUIET,
  };
  const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  other = { child, url: `http://127.0.0.1:${port}`, output: '', exited: new Promise((resolve) => child.on('exit', resolve)) };
  child.stdout!.on('data', (chunk) => (other.output += chunk));
  child.stderr!.on('data', (chunk) => (other.output += chunk));
  await until(async () => (await fetch(`${other.url}/readyz`).catch(() => undefined))?.status === 200, `second process ready\n${other.output}`, 120_000);
}, 180_000);
afterAll(async () => {
  if (other?.child.exitCode === null) other.child.kill('SIGTERM');
  await other?.exited;
  await service?.stop();
});

const TOKEN_TABLE = /oauth_access_tokens/;

async function run(request: () => Promise<{ status: number; body: any }>) {
  service.statements.length = 0;
  const response = await request();
  return { ...response, statements: [...service.statements] };
}

async function tenantWithRows(tenant: string) {
  const api = await signIn(service, tenant);
  const make = factories(api);
  const course = await make.course();
  const enrollments = [await make.enrollment({ course_uuid: course.uuid }), await make.enrollment({ course_uuid: course.uuid })];
  return { api, course, enrollments };
}

describe('authentication comes before the query', () => {
  it('a token first seen by this process costs one indexed lookup; after that none: a read is ONE statement, and it never touches the token tables', async () => {
    const { api, enrollments } = await tenantWithRows('auth-first');
    const fresh = await signIn(service, 'auth-first');
    const first = await run(() => fresh.rest('GET', '/enrollments?includes[student]=1&includes[course]=1'));
    expect(first.status).toBe(200);
    expect(first.statements).toHaveLength(2);
    expect(first.statements[0]).toMatch(TOKEN_TABLE);
    expect(first.statements[1]).not.toMatch(TOKEN_TABLE);

    const list = await run(() => fresh.rest('GET', '/enrollments?includes[student]=1&includes[course]=1'));
    const record = await run(() => fresh.rest('GET', `/enrollments/${enrollments[0]!.uuid}?includes[student]=1&includes[course]=1`));
    const bare = await run(() => fresh.rest('GET', `/enrollments/${enrollments[1]!.uuid}`));
    const graphql = await run(() => fresh.graphql('{ enrollments(first: 10) { totalCount nodes { uuid student { name } course { name } } } }'));
    for (const read of [list, record, bare, graphql]) {
      expect(read.status).toBe(200);
      expect(read.statements).toHaveLength(1);
      expect(read.statements[0]).not.toMatch(TOKEN_TABLE);
    }
    expect(list.body.meta.total).toBe(2);
    expect(record.body.data.student.name).toEqual(expect.any(String));
    expect(graphql.body.data.enrollments.totalCount).toBe(2);
    expect(api.token).not.toBe(fresh.token);
  });

  it('writes, Idempotency-Key requests and errors on a known token look nothing up either', async () => {
    const { api } = await tenantWithRows('auth-writes');
    const institution = await factories(api).institution();
    const created = await run(() =>
      api.rest('POST', '/courses', { name: 'Known', institution_uuid: institution.uuid }, { 'idempotency-key': 'auth-writes-1' }),
    );
    const invalid = await run(() => api.rest('GET', '/enrollments?per_page=-4'));
    const mutation = await run(() =>
      api.graphql('mutation($input: CourseInput!) { createCourse(input: $input) { uuid } }', {
        input: { name: 'Known too', institutionUuid: institution.uuid },
      }),
    );
    expect([created.status, invalid.status, mutation.status]).toEqual([201, 422, 200]);
    for (const request of [created, invalid, mutation]) expect(request.statements.filter((sql) => TOKEN_TABLE.test(sql))).toEqual([]);
  });

  it('an unknown token is refused before any other statement: 401 with WWW-Authenticate, in each style’s error shape', async () => {
    const stranger = new ApiClient(service.url, 'not-a-token-this-service-issued', 'auth-stranger');
    const rest = await run(() => stranger.rest('GET', '/enrollments'));
    const graphql = await run(() => stranger.graphql('{ enrollments(first: 1) { totalCount } }'));
    for (const refused of [rest, graphql]) {
      expect(refused.status).toBe(401);
      expect(refused.statements).toHaveLength(1);
      expect(refused.statements[0]).toMatch(TOKEN_TABLE);
    }
    expect(rest.body).toEqual({ message: 'Unauthenticated.' });
    expect(graphql.body).toEqual({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] });
  });
});

describe('a revoked token is refused on every process', () => {
  it('rotation: the rotating process refuses the old token at once, the other process within a second', async () => {
    const { api } = await tenantWithRows('auth-rotate');
    const elsewhere = new ApiClient(other.url, api.token, api.tenant);
    // Both processes know the token now (the second request on each is answered from its cache).
    for (const client of [api, elsewhere, api, elsewhere]) expect((await client.rest('GET', '/courses')).status).toBe(200);
    const clientId = (await api.rest('GET', '/whoami')).body.data.client_id as string;

    const rotated = await new ClientService(service.orm.em.fork()).rotate(clientId);
    expect(rotated.clientId).not.toBe(clientId);
    const here = await api.rest('GET', '/courses');
    const hereGraphql = await api.graphql('{ courses(first: 1) { totalCount } }');
    expect([here.status, hereGraphql.status]).toEqual([401, 401]);
    expect(here.body).toEqual({ message: 'Unauthenticated.' });
    await until(async () => (await elsewhere.rest('GET', '/courses')).status === 401, 'the other process refusing the rotated token', 1000);
  });

  it('a token revoked straight in the database (as an operator or another process would) is refused within a second here too', async () => {
    const { api } = await tenantWithRows('auth-sql');
    expect((await api.rest('GET', '/courses')).status).toBe(200);
    await service.orm.em
      .getConnection()
      .execute(`update oauth_access_tokens set revoked_at = now() where revoked_at is null and token_hash = encode(sha256(?::bytea), 'hex')`, [api.token]);
    await until(async () => (await api.rest('GET', '/courses')).status === 401, 'this process refusing the revoked token', 1000);
    const refused = await api.graphql('{ courses(first: 1) { totalCount } }');
    expect(refused.status).toBe(401);
  });

  it('a token of another tenant is refused as before (403); a revoked one is 401 first', async () => {
    const { api } = await tenantWithRows('auth-tenant');
    expect((await new ApiClient(service.url, api.token, 'someone-else').rest('GET', '/courses')).status).toBe(403);
    const clientId = (await api.rest('GET', '/whoami')).body.data.client_id as string;
    await new ClientService(service.orm.em.fork()).rotate(clientId);
    expect((await new ApiClient(service.url, api.token, 'someone-else').rest('GET', '/courses')).status).toBe(401);
  });
});
