import { factories } from './support/factories.js';
import { ApiClient, signIn, startTestService, type TestService } from './support/service.js';

/**
 * A token this process has authenticated before costs no statement of its own: its cached principal
 * is proven active inside the request's first page statement (src/auth/principal-check.ts). These
 * tests revoke tokens the way a rotation on another process does, straight in the database, and
 * expect the very next request to be refused whatever path it takes, with nothing written.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0', JOB_WORKER: 'off', IDEMPOTENCY_SWEEP_MS: '0' });
});
afterAll(() => service.stop());

const TOKEN_TABLE = /oauth_access_tokens/;

/** A fresh tenant with a token already used once (so this process has its principal cached) and a few rows. */
async function warmTenant(tenant: string) {
  const api = await signIn(service, tenant);
  const make = factories(api);
  const course = await make.course();
  const enrollments = [await make.enrollment({ course_uuid: course.uuid }), await make.enrollment({ course_uuid: course.uuid })];
  expect((await api.rest('GET', '/courses')).status).toBe(200);
  return { api, course, enrollments };
}

async function revoke(api: ApiClient): Promise<void> {
  await service.orm.em
    .getConnection()
    .execute(`update oauth_access_tokens set revoked_at = now() where revoked_at is null and token_hash = encode(sha256(?::bytea), 'hex')`, [api.token]);
}

async function run(request: () => Promise<{ status: number; body: any }>) {
  service.statements.length = 0;
  const response = await request();
  return { ...response, statements: [...service.statements] };
}

describe('a cached principal is proven in the request’s own statement', () => {
  it('a list page and a record with relations are each ONE statement that also proves the token', async () => {
    const { api, enrollments } = await warmTenant('proof-one');
    const list = await run(() => api.rest('GET', '/enrollments?includes[student]=1&includes[course]=1'));
    const record = await run(() => api.rest('GET', `/enrollments/${enrollments[0]!.uuid}?includes[student]=1&includes[course]=1`));
    const bare = await run(() => api.rest('GET', `/enrollments/${enrollments[1]!.uuid}`));
    const graphql = await run(() => api.graphql('{ enrollments(first: 10) { totalCount nodes { uuid student { name } course { name } } } }'));
    for (const read of [list, record, bare, graphql]) {
      expect(read.status).toBe(200);
      expect(read.statements).toHaveLength(1);
      expect(read.statements[0]).toMatch(TOKEN_TABLE);
    }
    expect(list.body.meta.total).toBe(2);
    expect(record.body.data.uuid).toBe(enrollments[0]!.uuid);
    expect(record.body.data.student.name).toEqual(expect.any(String));
    expect(graphql.body.data.enrollments.totalCount).toBe(2);
  });

  it('only one statement carries the proof: further records of the same operation batch as usual', async () => {
    const { api, enrollments } = await warmTenant('proof-batch');
    const third = await factories(api).enrollment();
    const uuids = [...enrollments.map((row) => row.uuid as string), third.uuid as string];
    const read = await run(() => api.graphql(`{ ${uuids.map((uuid, index) => `e${index}: enrollment(uuid: "${uuid}") { uuid }`).join(' ')} }`));
    expect(read.status).toBe(200);
    expect(uuids.map((_uuid, index) => read.body.data[`e${index}`].uuid)).toEqual(uuids);
    // One record's statement with the proof, one batch for the other two.
    expect(read.statements).toHaveLength(2);
    expect(read.statements.filter((sql) => TOKEN_TABLE.test(sql))).toHaveLength(1);
  });

  it('an empty page still answers with its total', async () => {
    const { api } = await warmTenant('proof-empty');
    const past = await run(() => api.rest('GET', '/enrollments?per_page=1&page=50'));
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.total).toBe(2);
    expect(past.statements).toHaveLength(1);
  });

  it('an operation name the document lacks is still a plain GraphQL error, not a failure', async () => {
    const { api } = await warmTenant('proof-name');
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: api.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ query: '{ enrollments(first: 1) { totalCount } }', operationName: 'Missing' }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].message).toMatch(/Missing/);
  });

  it('a token first seen by this process is looked up, then cached', async () => {
    const api = await signIn(service, 'proof-first');
    const first = await run(() => api.rest('GET', '/courses'));
    const second = await run(() => api.rest('GET', '/courses'));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.statements).toHaveLength(2);
    expect(second.statements).toHaveLength(1);
  });
});

describe('a token revoked elsewhere is refused on its very next request', () => {
  const refusals: [string, (api: ApiClient, uuids: { course: string; enrollment: string }) => Promise<{ status: number; body: any }>][] = [
    ['REST list', (api) => api.rest('GET', '/enrollments')],
    ['REST record with relations', (api, { enrollment }) => api.rest('GET', `/enrollments/${enrollment}?includes[student]=1`)],
    ['REST record without relations', (api, { enrollment }) => api.rest('GET', `/enrollments/${enrollment}`)],
    ['REST foreign uuid (would be 404)', (api) => api.rest('GET', '/enrollments/00000000-0000-4000-8000-000000000000')],
    ['REST filter the page statement leaves to the query builder', (api) => api.rest('GET', '/certificates?where[status]=issued')],
    ['REST invalid query (would be 4xx)', (api) => api.rest('GET', '/enrollments?per_page=-4')],
    ['GraphQL query', (api) => api.graphql('{ enrollments(first: 5) { totalCount } }')],
    ['GraphQL query without any read', (api) => api.graphql('{ viewer { clientId } }')],
    ['GraphQL invalid document', (api) => api.graphql('{ enrollments(first: 5) { nope } }')],
  ];

  it.each(refusals)('%s: 401', async (_name, request) => {
    const { api, course, enrollments } = await warmTenant(`proof-${Math.random().toString(36).slice(2, 8)}`);
    await revoke(api);
    const refused = await request(api, { course: course.uuid, enrollment: enrollments[0]!.uuid });
    expect(refused.status).toBe(401);
    // Nothing of the request's own answer leaks: only the refusal, in the style's error shape.
    expect(refused.body).toEqual(
      refused.body.errors ? { errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] } : { message: 'Unauthenticated.' },
    );
  });

  it('writes are refused before anything is written: GraphQL mutation and REST create', async () => {
    const { api } = await warmTenant('proof-writes');
    const institution = await factories(api).institution();
    // The same writes with a live token do write (so the refusal below is the proof's doing).
    const allowed = await api.rest('POST', '/courses', { name: 'Allowed', institution_uuid: institution.uuid });
    expect(allowed.status).toBe(201);
    const [before] = await service.orm.em.getConnection().execute(`select count(*)::int as n from courses where deleted_at is null`);
    await revoke(api);
    const mutation = await api.graphql(`mutation($input: CourseInput!) { createCourse(input: $input) { uuid } }`, {
      input: { name: 'Refused', institutionUuid: institution.uuid },
    });
    const created = await api.rest('POST', '/courses', { name: 'Refused too', institution_uuid: institution.uuid });
    const [after] = await service.orm.em.getConnection().execute(`select count(*)::int as n from courses where deleted_at is null`);
    expect([mutation.status, created.status]).toEqual([401, 401]);
    expect(mutation.body.data).toBeUndefined();
    expect(created.body).toEqual({ message: 'Unauthenticated.' });
    expect(after.n).toBe(before.n);
  });

  it('a token of another tenant is refused as before (403), and a revoked one with a wrong tenant is 401 first', async () => {
    const { api } = await warmTenant('proof-tenant');
    expect((await new ApiClient(service.url, api.token, 'someone-else').rest('GET', '/courses')).status).toBe(403);
    await revoke(api);
    expect((await new ApiClient(service.url, api.token, 'someone-else').rest('GET', '/courses')).status).toBe(401);
  });
});
