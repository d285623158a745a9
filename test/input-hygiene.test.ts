import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0' });
  api = await signIn(service, 'acme');
});
afterAll(() => service.stop());

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
const codesOf = (body: any): string[] => (body.errors ?? []).map((error: any) => error.extensions?.code);

async function expectHealthy(): Promise<void> {
  expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  expect((await api.rest('GET', '/students')).status).toBe(200);
}

const student = (name: string) => ({ name, email: `s${Math.random().toString(36).slice(2)}@example.org`, date_of_birth: '2001-02-03' });
const CREATE_STUDENT = 'mutation($input: StudentInput!) { createStudent(input: $input) { uuid } }';

describe.each([
  ['a NUL byte', NUL],
  ['a lone UTF-16 surrogate', LONE_SURROGATE],
])('%s in a string', (_name, text) => {
  it('is refused in a REST body with 422 naming the field', async () => {
    const response = await api.rest('POST', '/students', student(text));
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['name']);
    expect(response.body.errors.name[0]).toMatch(/may not contain NUL characters or unpaired UTF-16 surrogates/);
    await expectHealthy();
  });

  it('is refused in a REST query-string filter with 422 naming the filter', async () => {
    const response = await api.rest('GET', `/students?where[email]=${text === NUL ? '%00' : '%ED%A0%80'}`);
    if (text === NUL) {
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(['where.email']);
    } else {
      // A percent-encoded surrogate is not valid UTF-8: the query string keeps it undecoded, a harmless literal.
      expect(response.status).toBe(200);
    }
    await expectHealthy();
  });

  it('is refused in GraphQL variables and literals with BAD_USER_INPUT', async () => {
    const fromVariables = await api.graphql(CREATE_STUDENT, { input: { name: text, email: 'x@example.org', dateOfBirth: '2001-02-03' } });
    expect(codesOf(fromVariables.body)).toEqual(['BAD_USER_INPUT']);
    expect(Object.keys(fromVariables.body.errors[0].extensions.errors)).toEqual(['name']);
    const fromLiteral = await api.graphql(`{ students(where: { email: ${JSON.stringify(text)} }) { totalCount } }`);
    if (text === NUL) {
      expect(codesOf(fromLiteral.body)).toEqual(['BAD_USER_INPUT']);
      expect(Object.keys(fromLiteral.body.errors[0].extensions.errors)).toEqual(['where.email']);
    } else {
      // GraphQL's own lexer refuses an unpaired \ud800 escape: the document does not parse.
      expect(fromLiteral.status).toBe(400);
      expect(codesOf(fromLiteral.body)).not.toContain('INTERNAL_SERVER_ERROR');
    }
    const filter = await api.graphql('query($where: StudentWhere) { students(where: $where) { totalCount } }', { where: { email: text } });
    expect(Object.keys(filter.body.errors[0].extensions.errors)).toEqual(['where.email']);
    await expectHealthy();
  });

  it('is refused inside client JSON (a template design configuration), keys included', async () => {
    const institution = await factories(api).institution();
    const body = { name: 'T', version: '1', path: '/t.pdf', institution_uuid: institution.uuid };
    const inValue = await api.rest('POST', '/certificate-templates', { ...body, design_config: { pages: [{ text }] } });
    expect(inValue.status).toBe(422);
    expect(Object.keys(inValue.body.errors)).toEqual(['design_config.pages.text']);
    const inKey = await api.rest('POST', '/certificate-templates', { ...body, design_config: { [text]: 1 } });
    expect(inKey.status).toBe(422);
    await expectHealthy();
  });
});

describe('cursors', () => {
  const cursor = (text: string) => Buffer.from(text).toString('base64url');

  it('refuses a position beyond what a number holds, and garbage, with BAD_USER_INPUT', async () => {
    for (const after of [cursor('pos:99999999999999999999999'), cursor('pos:9007199254740992'), 'garbage', cursor('pos:-1')]) {
      const response = await api.graphql('query($after: String) { students(after: $after) { totalCount } }', { after });
      expect([after, codesOf(response.body)]).toEqual([after, ['BAD_USER_INPUT']]);
      expect(response.body.errors[0].extensions.errors.after).toEqual(['The after cursor is invalid.']);
    }
    const last = await api.graphql('query($after: String) { students(after: $after) { nodes { uuid } } }', { after: cursor('pos:9007199254740991') });
    expect(last.body.data.students.nodes).toEqual([]);
    await expectHealthy();
  });

  it('refuses a REST page whose offset no cursor can name with 422', async () => {
    const response = await api.rest('GET', '/students?page=100000000000000000000&per_page=100');
    expect(response.status).toBe(422);
    expect(response.body.errors.page[0]).toMatch(/field must not be greater than/);
    await expectHealthy();
  });
});

describe('JSON nesting', () => {
  const nested = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

  it('refuses a body nested 20,000 levels with 400 on REST and GraphQL, and stays healthy', async () => {
    const rest = await api.rest('POST', '/students', `{"name":"x","design":${nested(20_000)}}`);
    expect(rest.status).toBe(400);
    expect(rest.body.message).toBe('The request body is nested deeper than 64 levels.');
    const graphql = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: api.headers({ 'content-type': 'application/json' }),
      body: `{"query":"{ viewer { clientId } }","variables":${nested(20_000)}}`,
    });
    expect(graphql.status).toBe(400);
    await expectHealthy();
  });

  it('counts brackets inside strings as text', async () => {
    const response = await api.rest('POST', '/students', { ...student(`${'['.repeat(500)}"\\${'{'.repeat(500)}`), name: `${'{'.repeat(200)}` });
    expect(response.status).toBe(201);
    expect(response.body.data.name).toBe('{'.repeat(200));
  });

  it('accepts a design configuration nested within the limit and returns it unchanged', async () => {
    const institution = await factories(api).institution();
    const design = JSON.parse(nested(40, '{"snake_key":[1,{"x":"y"}]}'));
    const response = await api.rest('POST', '/certificate-templates', {
      name: 'T',
      version: '1',
      path: '/t.pdf',
      institution_uuid: institution.uuid,
      design_config: design,
    });
    expect(response.status).toBe(201);
    expect(response.body.data.design_config).toEqual(design);
  });
});
