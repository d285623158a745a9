import { randomBytes } from 'node:crypto';
import { createSchema } from '../src/graphql/schema.js';
import { routes } from '../rest-compat/routes.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let studentUuid: string;
const ENROLLMENTS = 300;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0', JOB_WORKER: 'off', IDEMPOTENCY_SWEEP_MS: '0' });
  api = await signIn(service, 'acme');
  const make = factories(api);
  const [student, course] = await Promise.all([make.student(), make.course()]);
  studentUuid = student.uuid;
  for (let batch = 0; batch < ENROLLMENTS / 20; batch++) {
    await Promise.all(Array.from({ length: 20 }, () => make.enrollment({ student_uuid: student.uuid, course_uuid: course.uuid })));
  }
}, 120_000);
afterAll(() => service.stop());

const codesOf = (body: any): string[] => (body.errors ?? []).map((error: any) => error.extensions?.code);

async function expectHealthy(): Promise<void> {
  expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  const viewer = await api.graphql('{ viewer { tenant { identifier } } }');
  expect(viewer.body.data.viewer.tenant.identifier).toBe('acme');
}

describe('GraphQL cost', () => {
  it('refuses the cyclic students → enrollments → student query before running it, and stays healthy', async () => {
    const cyclic = '{ students(first: 100) { nodes { enrollments(first: 100) { nodes { student { enrollments(first: 100) { nodes { uuid } } } } } } } }';
    const response = await api.graphql(cyclic);
    expect(response.status).toBe(400);
    expect(codesOf(response.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(response.body.errors[0].message).toMatch(/too expensive: it may load [\d,]+ rows, the limit is 50,000/);
    expect(response.body.data).toBeUndefined();
    await expectHealthy();
  });

  it('counts rows through first: (a depth-3 cycle with large pages is refused, the same with small pages runs)', async () => {
    const cycle = (first: number) =>
      `{ students(first: ${first}) { nodes { enrollments(first: ${first}) { nodes { student { enrollments(first: ${first}) { nodes { uuid } } } } } } } }`;
    const large = await api.graphql(cycle(100));
    expect(large.status).toBe(400);
    // 100 students × (1 + 100 enrollments × (1 + 1 student + 100 enrollments)), plus each connection's nodes.
    expect(large.body.errors[0].message).toMatch(/too expensive: it may load 2,030,200 rows/);
    const small = await api.graphql(cycle(5));
    expect(small.status).toBe(200);
    expect(small.body.data.students.nodes[0].enrollments.nodes).toHaveLength(5);
    expect(small.body.data.students.nodes[0].enrollments.nodes[0].student.enrollments.nodes).toHaveLength(5);
  });

  it('refuses an alias bomb', async () => {
    const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: viewer { clientId }`).join(' ');
    const response = await api.graphql(`{ ${aliases} }`);
    expect(response.status).toBe(400);
    expect(codesOf(response.body)[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.body.errors[0].message).toMatch(/aliases/i);
    await expectHealthy();
  });

  it('refuses a document of too many tokens, and a malformed one, as parse failures (400, not 500)', async () => {
    const long = await api.graphql(`{ viewer { ${'clientId '.repeat(3000)} } }`);
    expect(long.status).toBe(400);
    expect(codesOf(long.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(long.body.errors[0].message).toMatch(/contains more th.. 2000 tokens/);
    const malformed = await api.graphql('{ viewer { clientId }');
    expect(malformed.status).toBe(400);
    expect(codesOf(malformed.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
  });

  it('refuses a selection deeper than the limit even when it is cheap', async () => {
    const deep = `{ student(uuid: "${'00000000-0000-0000-0000-000000000000'}") { enrollments(first: 1) { nodes { student { enrollments(first: 1) { nodes { student { enrollments(first: 1) { nodes { student { enrollments(first: 1) { nodes { uuid } } } } } } } } } } } } }`;
    const response = await api.graphql(deep);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/depth/i);
  });

  it('runs a legitimately deep but cheap query', async () => {
    const query = `query($uuid: ID!) { student(uuid: $uuid) { enrollments(first: 2) { nodes { course { modules(first: 3) { module { institution { name } } group { name } } institution { name } } } } } }`;
    const response = await api.graphql(query, { uuid: studentUuid });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.student.enrollments.nodes).toHaveLength(2);
    expect(response.body.data.student.enrollments.nodes[0].course.institution.name).toMatch(/^Institution/);
  });

  it('lets every REST list route run with every include at the largest page', async () => {
    const table = routes(await createSchema(), 'http://x').filter((route) => route.method === 'get' && !route.path.includes(':'));
    const includes: Record<string, string[]> = {
      '/modules': ['institution'],
      '/courses': ['institution', 'groups'],
      '/cohorts': ['course'],
      '/students': ['enrollments'],
      '/enrollments': ['student', 'course', 'cohort'],
      '/certificate-templates': ['institution'],
      '/certificates': ['student', 'course', 'institution', 'files'],
    };
    for (const route of table) {
      const query = (includes[route.path] ?? []).map((name) => `&includes[${name}]=1`).join('');
      const response = await api.rest('GET', `${route.path}?per_page=100${query}`);
      expect([route.path, response.status]).toEqual([route.path, 200]);
    }
  });
});

describe('relation connections', () => {
  it('show 15 rows by default and exactly first: rows when asked, within 1-100', async () => {
    const query = 'query($uuid: ID!, $first: Int) { student(uuid: $uuid) { enrollments(first: $first) { nodes { uuid } } } }';
    const defaulted = await api.graphql('query($uuid: ID!) { student(uuid: $uuid) { enrollments { nodes { uuid } pageInfo { hasNextPage } } } }', {
      uuid: studentUuid,
    });
    expect(defaulted.body.data.student.enrollments.nodes).toHaveLength(15);
    expect(defaulted.body.data.student.enrollments.pageInfo.hasNextPage).toBe(true);
    const seven = await api.graphql(query, { uuid: studentUuid, first: 7 });
    expect(seven.body.data.student.enrollments.nodes.map((row: any) => row.uuid)).toEqual(
      defaulted.body.data.student.enrollments.nodes.slice(0, 7).map((row: any) => row.uuid),
    );
    for (const first of [0, 101]) {
      const refused = await api.graphql(query, { uuid: studentUuid, first });
      expect(codesOf(refused.body)).toEqual(['BAD_USER_INPUT']);
      expect(refused.body.errors[0].extensions.errors.first[0]).toMatch(first === 0 ? /at least 1/ : /greater than 100/);
    }
  });

  it('load the enrollments of a page of students in one statement, whatever the page size', async () => {
    await factories(api).enrollment();
    const statements = async (first: number) => {
      service.statements.length = 0;
      const response = await api.graphql(`{ students(first: ${first}) { nodes { enrollments(first: 3) { nodes { uuid } } } } }`);
      expect(response.body.data.students.nodes.length).toBe(first);
      return service.statements.filter((sql) => /"enrollments"/.test(sql)).length;
    };
    expect(await statements(2)).toBe(1);
    expect(await statements(1)).toBe(1);
  });
});

describe('who may run an operation', () => {
  const introspection = `${'/graphql'}?query=${encodeURIComponent('{ __type(name: "Student") { name fields { name } } }')}`;

  it('answers a GET operation without a token with 401, whatever the Accept header', async () => {
    for (const accept of ['text/html, application/json', 'application/json, text/html', 'application/json', 'text/html']) {
      const response = await fetch(`${service.url}${introspection}`, { headers: { accept, 'apollo-require-preflight': '1' } });
      expect([accept, response.status]).toEqual([accept, 401]);
      expect(await response.text()).not.toContain('"fields"');
    }
  });

  it('answers a POST operation without a token with 401', async () => {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html, application/json' },
      body: JSON.stringify({ query: '{ __schema { types { name } } }' }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('serves Apollo Sandbox to a browser without a token in development', async () => {
    const response = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/sandbox/i);
  });
});

describe('in production', () => {
  let production: TestService;
  let client: ApiClient;
  beforeAll(async () => {
    production = await startTestService({
      NODE_ENV: 'production',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      NOTIFICATION_WORKER: 'off',
      EXPIRY_SWEEP_MS: '0',
      RESPONSE_MAX_BYTES: '4096',
    });
    client = await signIn(production, 'acme');
    const make = factories(client);
    for (let batch = 0; batch < 4; batch++) await Promise.all(Array.from({ length: 10 }, () => make.student()));
  }, 60_000);
  afterAll(() => production.stop());

  it('serves no Sandbox: a browser without a token gets 401', async () => {
    const response = await fetch(`${production.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(401);
  });

  it('names no fields in its errors ("Did you mean" is a development aid)', async () => {
    const response = await client.graphql('{ students { nodes { nam emial } } }');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toBe('Cannot query field "nam" on type "Student".');
    expect(JSON.stringify(response.body)).not.toMatch(/Did you mean|"name"|"email"/);
    const development = await api.graphql('{ students { nodes { nam } } }');
    expect(development.body.errors[0].message).toMatch(/Did you mean "name"/);
  });

  it('replaces a response above the size cap with one error', async () => {
    const small = await client.graphql('{ students(first: 2) { nodes { uuid } } }');
    expect(small.body.data.students.nodes).toHaveLength(2);
    const large = await client.graphql('{ students(first: 40) { nodes { uuid name email createdAt } } }');
    expect(large.status).toBe(400);
    expect(large.body.data).toBeUndefined();
    expect(codesOf(large.body)).toEqual(['RESPONSE_TOO_LARGE']);
  });
});
