import { parse, validate } from 'graphql';
import { SANDBOX_EXAMPLES } from '../src/graphql/apollo.js';
import { toGlobalId } from '../src/graphql/node.js';
import { createSchema } from '../src/graphql/schema.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  service = await startTestService({ SEED_TENANT: 'acme', SEED_CLIENT_ID: 'seed-client', SEED_CLIENT_SECRET: 'seed-secret-0123456789abcdef' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(() => service.stop());

const MISSING = '0190b8a0-0000-7000-8000-000000000000';

async function institution(api: ApiClient, name: string) {
  const response = await api.rest('POST', '/institutions', { name, country: 'BR' });
  expect(response.status).toBe(201);
  return response.body.data as { uuid: string; name: string };
}

describe('single-record lookups', () => {
  it('answer null with a NOT_FOUND error for a missing record, leaving the rest of the response intact', async () => {
    const found = await institution(acme, 'Found');
    const response = await acme.graphql(`query($a: ID!, $b: ID!) { a: institution(uuid: $a) { name } b: institution(uuid: $b) { name } }`, {
      a: found.uuid,
      b: MISSING,
    });
    expect(response.body.data).toEqual({ a: { name: 'Found' }, b: null });
    expect(response.body.errors).toEqual([expect.objectContaining({ message: 'Institution not found.', path: ['b'], extensions: { code: 'NOT_FOUND' } })]);
  });

  it('still answer a plain 404 over REST, for a missing and for another tenant’s record', async () => {
    const foreign = await institution(globex, 'Foreign');
    for (const uuid of [MISSING, foreign.uuid]) {
      const response = await acme.rest('GET', `/institutions/${uuid}`);
      expect([response.status, response.body]).toEqual([404, { message: 'Institution not found.' }]);
    }
  });
});

describe('Relay object identification', () => {
  it('gives every record a global id that node(id:) fetches again within the tenant', async () => {
    const created = await acme.graphql('mutation { createStudent(input: { name: "Ana", email: "ana@example.org", dateOfBirth: "2000-01-02" }) { id uuid } }');
    const { id, uuid } = created.body.data.createStudent;
    expect(id).toBe(toGlobalId('Student', uuid));
    const fetched = await acme.graphql('query($id: ID!) { node(id: $id) { id __typename ... on Student { uuid name } } }', { id });
    expect(fetched.body).toEqual({ data: { node: { id, __typename: 'Student', uuid, name: 'Ana' } } });
  });

  it('answers null with NOT_FOUND for another tenant’s id, an unknown id and a malformed id', async () => {
    const foreign = await institution(globex, 'Not yours');
    for (const id of [toGlobalId('Institution', foreign.uuid), toGlobalId('Institution', MISSING), toGlobalId('Tenant', MISSING), 'garbage']) {
      const response = await acme.graphql('query($id: ID!) { node(id: $id) { id } viewer { clientId } }', { id });
      expect(response.body.data).toEqual({ node: null, viewer: { clientId: expect.any(String) } });
      expect(response.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['NOT_FOUND']);
    }
  });
});

describe('connections', () => {
  const LIST = `query($first: Int, $after: String, $last: Int, $before: String) {
    modules(first: $first, after: $after, last: $last, before: $before, sort: { column: name }) {
      nodes { name } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`;

  it('page backwards with last/before and report both directions in pageInfo', async () => {
    const api = await signIn(service, 'pager');
    const owner = await institution(api, 'Owner');
    for (const name of ['m1', 'm2', 'm3', 'm4', 'm5']) expect((await api.rest('POST', '/modules', { name, institution_uuid: owner.uuid })).status).toBe(201);
    const names = (body: { data: { modules: { nodes: { name: string }[] } } }) => body.data.modules.nodes.map((node) => node.name);

    const tail = await api.graphql(LIST, { last: 2 });
    expect(names(tail.body)).toEqual(['m4', 'm5']);
    expect(tail.body.data.modules.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    const previous = await api.graphql(LIST, { last: 2, before: tail.body.data.modules.pageInfo.startCursor });
    expect(names(previous.body)).toEqual(['m2', 'm3']);
    const first = await api.graphql(LIST, { last: 2, before: previous.body.data.modules.pageInfo.startCursor });
    expect(names(first.body)).toEqual(['m1']);
    expect(first.body.data.modules.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

    const forward = await api.graphql(LIST, { first: 2, after: first.body.data.modules.pageInfo.endCursor });
    expect(names(forward.body)).toEqual(['m2', 'm3']);
    expect(forward.body.data.modules.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const between = await api.graphql(LIST, {
      first: 10,
      after: first.body.data.modules.pageInfo.endCursor,
      before: tail.body.data.modules.pageInfo.startCursor,
    });
    expect(names(between.body)).toEqual(['m2', 'm3']);
  });

  it('refuses first and last together, and a malformed before cursor, as field errors', async () => {
    const both = await acme.graphql(LIST, { first: 2, last: 2 });
    expect(both.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { last: ['The last field is prohibited when first is present.'] } });
    const bad = await acme.graphql(LIST, { last: 2, before: 'nope' });
    expect(bad.body.errors[0].extensions.errors).toEqual({ before: ['The before cursor is invalid.'] });
  });
});

describe('Apollo Sandbox', () => {
  it('opens with example operations that the schema accepts and the X-Tenant header prefilled', async () => {
    const schema = await createSchema();
    expect(validate(schema, parse(SANDBOX_EXAMPLES))).toEqual([]);
    const page = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('X-Tenant');
    expect(html).toContain('acme');
    expect(html).toContain('mutation CreateInstitution');
  });
});
