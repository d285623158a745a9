import { Institution } from '../src/institutions/institution.entity.js';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { startTestService, signIn, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  service = await startTestService();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(() => service.stop());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

async function createInstitution(api: ApiClient, fields: Record<string, unknown> = {}) {
  const response = await api.rest('POST', '/institutions', { name: 'Universidade Federal', country: 'BR', ...fields });
  expect(response.status).toBe(201);
  return response.body.data;
}

describe('institutions over REST', () => {
  it('creates with defaults and answers 201 with the full record', async () => {
    const response = await acme.rest('POST', '/institutions', { name: 'Escola Técnica', country: 'PT', website: 'https://et.pt' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      data: {
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        external_id: null,
        name: 'Escola Técnica',
        legal_name: null,
        tax_id: null,
        country: 'PT',
        website: 'https://et.pt',
        email: null,
        network_organization: null,
        status: 'active',
        is_badges_enabled: false,
        is_grade_public: false,
        is_wallet_pin_required: false,
        badge_image_uuid: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      },
    });
    const fetched = await acme.rest('GET', `/institutions/${response.body.data.uuid}`);
    expect(fetched.body).toEqual(response.body);
  });

  it('reports every missing required field and invalid value with a 422 per field', async () => {
    const response = await acme.rest('POST', '/institutions', { website: 'https://x.org' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ name: ['The name field is required.'], country: ['The country field is required.'] });
    expect(response.body.message).toBe('The name field is required. (and 1 more error)');

    const tooLong = await acme.rest('POST', '/institutions', { name: 'x'.repeat(256), country: 'BR', website: 'not a url', status: 'closed' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({
      name: ['The name field must not be greater than 255 characters.'],
      website: ['The website field must be a valid URL.'],
      status: ['The selected status is invalid.'],
    });
  });

  it('requires badge_image_uuid and email while badges are enabled', async () => {
    const response = await acme.rest('POST', '/institutions', { name: 'Badged', country: 'BR', is_badges_enabled: true });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      badge_image_uuid: ['The badge image uuid field is required when badges are enabled.'],
      email: ['The email field is required when badges are enabled.'],
    });
  });

  it('PATCH changes only the fields sent', async () => {
    const created = await createInstitution(acme, { legal_name: 'UF Ltda', tax_id: '123' });
    const response = await acme.rest('PATCH', `/institutions/${created.uuid}`, { status: 'suspended', tax_id: null });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ name: created.name, legal_name: 'UF Ltda', tax_id: null, status: 'suspended' });
  });

  it('PUT replaces: required fields must be sent and optional ones return to their defaults', async () => {
    const created = await createInstitution(acme, { legal_name: 'UF Ltda', status: 'inactive' });
    const missing = await acme.rest('PUT', `/institutions/${created.uuid}`, { name: 'Only a name' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ country: ['The country field is required.'] });

    const replaced = await acme.rest('PUT', `/institutions/${created.uuid}`, { name: 'Renamed', country: 'AR' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ name: 'Renamed', country: 'AR', legal_name: null, status: 'active' });
  });

  it('soft-deletes: 204, then 404 and gone from lists, but the row is kept', async () => {
    const created = await createInstitution(acme, { name: 'To delete' });
    const response = await acme.rest('DELETE', `/institutions/${created.uuid}`);
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    expect((await acme.rest('GET', `/institutions/${created.uuid}`)).status).toBe(404);
    const list = await acme.rest('GET', '/institutions?per_page=100');
    expect(list.body.data.map((row: { uuid: string }) => row.uuid)).not.toContain(created.uuid);
    const [row] = await service.orm.em.getConnection().execute('select deleted_at from institutions where uuid = ?', [created.uuid]);
    expect(row.deleted_at).not.toBeNull();
  });

  it('batch destroy deletes all or, when one uuid is unknown, nothing', async () => {
    const [a, b] = [await createInstitution(acme), await createInstitution(acme)];
    const unknown = '01a1fbd9-0000-7000-8000-000000000000';
    const refused = await acme.rest('DELETE', '/institutions/batch/destroy', { uuids: [a.uuid, unknown] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ uuids: [`These uuids do not exist: ${unknown}.`] });
    expect((await acme.rest('GET', `/institutions/${a.uuid}`)).status).toBe(200);

    const done = await acme.rest('DELETE', '/institutions/batch/destroy', { uuids: [a.uuid, b.uuid] });
    expect(done.status).toBe(204);
    expect((await acme.rest('GET', `/institutions/${a.uuid}`)).status).toBe(404);
    expect((await acme.rest('GET', `/institutions/${b.uuid}`)).status).toBe(404);
  });

  it('answers a malformed uuid in the path with 404, not a database error', async () => {
    const response = await acme.rest('GET', '/institutions/not-a-uuid');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Institution not found.' });
  });
});

describe('institution lists', () => {
  let lister: ApiClient;
  beforeAll(async () => {
    lister = await signIn(service, 'lister');
    for (const [name, country, status] of [
      ['Alpha', 'BR', 'active'],
      ['Bravo', 'AR', 'inactive'],
      ['Charlie', 'BR', 'active'],
      ['Delta', 'CL', 'suspended'],
    ]) {
      await createInstitution(lister, { name, country, status, tax_id: name === 'Delta' ? null : `T-${name}` });
    }
  });

  it('filters by equality, including null', async () => {
    const brazil = await lister.rest('GET', '/institutions?where[country]=BR&sort[column]=name');
    expect(brazil.body.data.map((row: { name: string }) => row.name)).toEqual(['Alpha', 'Charlie']);
    const noTaxId = await lister.rest('GET', '/institutions?where[tax_id]=null');
    expect(noTaxId.body.data.map((row: { name: string }) => row.name)).toEqual(['Delta']);
    const badges = await lister.rest('GET', '/institutions?where[is_badges_enabled]=false');
    expect(badges.body.meta.total).toBe(4);
  });

  it('sorts by an allowed column in either order', async () => {
    const response = await lister.rest('GET', '/institutions?sort[column]=name&sort[order]=desc');
    expect(response.body.data.map((row: { name: string }) => row.name)).toEqual(['Delta', 'Charlie', 'Bravo', 'Alpha']);
  });

  it('pages with meta and links', async () => {
    const response = await lister.rest('GET', '/institutions?sort[column]=name&per_page=3&page=2');
    expect(response.body.data.map((row: { name: string }) => row.name)).toEqual(['Delta']);
    expect(response.body.meta).toEqual({ current_page: 2, per_page: 3, total: 4, last_page: 2, total_is_estimate: false });
    expect(response.body.links).toEqual({
      first: 'http://credentials.test/api/v1/institutions?sort%5Bcolumn%5D=name&per_page=3&page=1',
      last: 'http://credentials.test/api/v1/institutions?sort%5Bcolumn%5D=name&per_page=3&page=2',
      prev: 'http://credentials.test/api/v1/institutions?sort%5Bcolumn%5D=name&per_page=3&page=1',
      next: null,
    });
  });

  it('answers unknown where and sort fields, and bad paging, with 422', async () => {
    const where = await lister.rest('GET', '/institutions?where[colour]=red');
    expect([where.status, where.body.errors]).toEqual([
      422,
      {
        'where.colour': [
          'Unknown filter field colour; this list filters by external_id, name, country, status, is_badges_enabled, tax_id, created_at, updated_at.',
        ],
      },
    ]);
    const sort = await lister.rest('GET', '/institutions?sort[column]=colour');
    expect([sort.status, sort.body.errors]).toEqual([422, { 'sort.column': ['The selected column is invalid.'] }]);
    const perPage = await lister.rest('GET', '/institutions?per_page=101');
    expect([perPage.status, perPage.body.errors]).toEqual([422, { per_page: ['The per page field must not be greater than 100.'] }]);
    const page = await lister.rest('GET', '/institutions?page=0');
    expect([page.status, page.body.errors]).toEqual([422, { page: ['The page field must be an integer of at least 1.'] }]);
  });

  it('pages through a GraphQL connection with cursors and totalCount', async () => {
    const query = `query($after: String) { institutions(first: 3, after: $after, sort: { column: name }) {
      totalCount nodes { name } edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }`;
    const first = await lister.graphql(query);
    const page1 = first.body.data.institutions;
    expect(page1.totalCount).toBe(4);
    expect(page1.nodes.map((node: { name: string }) => node.name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(page1.edges[2].cursor).toBe(page1.pageInfo.endCursor);
    const second = await lister.graphql(query, { after: page1.pageInfo.endCursor });
    expect(second.body.data.institutions.nodes).toEqual([{ name: 'Delta' }]);
    expect(second.body.data.institutions.pageInfo).toEqual({ hasNextPage: false, endCursor: expect.any(String) });
  });

  it('GraphQL filters with where, and explicit null means empty', async () => {
    const response = await lister.graphql('{ institutions(where: { taxId: null }) { nodes { name } } }');
    expect(response.body.data.institutions.nodes).toEqual([{ name: 'Delta' }]);
  });
});

describe('institutions over GraphQL', () => {
  it('creates, updates, replaces and deletes with the same rules as REST', async () => {
    const create = await acme.graphql(
      'mutation($input: InstitutionInput!) { createInstitution(input: $input) { uuid name status isBadgesEnabled createdAt } }',
      {
        input: { name: 'GraphQL Uni', country: 'UY' },
      },
    );
    const created = create.body.data.createInstitution;
    expect(created).toMatchObject({ name: 'GraphQL Uni', status: 'active', isBadgesEnabled: false, createdAt: expect.stringMatching(TIMESTAMP) });

    const badges = await acme.graphql(
      'mutation($uuid: ID!) { updateInstitution(uuid: $uuid, input: { isBadgesEnabled: true, email: "registrar@gql.example" }) { uuid } }',
      {
        uuid: created.uuid,
      },
    );
    expect(badges.body.errors[0]).toMatchObject({
      message: 'The badge image uuid field is required when badges are enabled.',
      extensions: { code: 'BAD_USER_INPUT', errors: { badgeImageUuid: ['The badge image uuid field is required when badges are enabled.'] } },
    });

    const invalid = await acme.graphql('mutation { createInstitution(input: { name: "", country: "BR" }) { uuid } }');
    expect(invalid.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { name: ['The name field is required.'] } });

    const replaced = await acme.graphql(
      'mutation($uuid: ID!) { replaceInstitution(uuid: $uuid, input: { name: "Replaced", country: "BR" }) { name country } }',
      { uuid: created.uuid },
    );
    expect(replaced.body.data.replaceInstitution).toEqual({ name: 'Replaced', country: 'BR' });

    const deleted = await acme.graphql('mutation($uuid: ID!) { deleteInstitution(uuid: $uuid) }', { uuid: created.uuid });
    expect(deleted.body.data.deleteInstitution).toBe(true);
    const gone = await acme.graphql('query($uuid: ID!) { institution(uuid: $uuid) { uuid } }', { uuid: created.uuid });
    expect(gone.body.errors[0]).toMatchObject({ message: 'Institution not found.', extensions: { code: 'NOT_FOUND' } });
  });
});

describe('tenant isolation', () => {
  it("one tenant's institution is a 404 for another on GET, PATCH, PUT and DELETE, and absent from its lists", async () => {
    const mine = await createInstitution(acme, { name: 'Acme Only' });
    expect((await globex.rest('GET', `/institutions/${mine.uuid}`)).status).toBe(404);
    expect((await globex.rest('PATCH', `/institutions/${mine.uuid}`, { name: 'Hijacked' })).status).toBe(404);
    expect((await globex.rest('PUT', `/institutions/${mine.uuid}`, { name: 'Hijacked', country: 'BR' })).status).toBe(404);
    expect((await globex.rest('DELETE', `/institutions/${mine.uuid}`)).status).toBe(404);
    expect((await globex.rest('DELETE', '/institutions/batch/destroy', { uuids: [mine.uuid] })).status).toBe(422);
    const list = await globex.rest('GET', '/institutions?per_page=100');
    expect(list.body.data.map((row: { uuid: string }) => row.uuid)).not.toContain(mine.uuid);
    const graphql = await globex.graphql('query($uuid: ID!) { institution(uuid: $uuid) { name } }', { uuid: mine.uuid });
    expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await acme.rest('GET', `/institutions/${mine.uuid}`)).body.data.name).toBe('Acme Only');
  });

  it('a row written through one tenant-scoped EntityManager is invisible through another', async () => {
    const tenants = await service.orm.em
      .getConnection()
      .execute<{ uuid: string; identifier: string }[]>(`select uuid, identifier from tenants where identifier in ('acme', 'globex')`);
    const uuidOf = (identifier: string) => tenants.find((tenant) => tenant.identifier === identifier)!.uuid;
    const asAcme = scopeToTenant(service.orm.em.fork(), uuidOf('acme'));
    const row = asAcme.create(Institution, { name: 'Scoped', country: 'BR' });
    await asAcme.flush();

    const asGlobex = scopeToTenant(service.orm.em.fork(), uuidOf('globex'));
    expect(await asGlobex.findOne(Institution, { uuid: row.uuid })).toBeNull();
    expect(await asGlobex.count(Institution, { name: 'Scoped' })).toBe(0);
    expect(await scopeToTenant(service.orm.em.fork(), uuidOf('acme')).findOne(Institution, { uuid: row.uuid })).not.toBeNull();
  });

  it('an EntityManager that was never scoped to a tenant cannot read or write tenant data at all', async () => {
    const unscoped = service.orm.em.fork();
    await expect(unscoped.find(Institution, {})).rejects.toThrow("No arguments provided for filter 'tenant'");
    unscoped.create(Institution, { name: 'Orphan', country: 'BR' });
    await expect(unscoped.flush()).rejects.toThrow('outside a tenant scope');
  });
});
