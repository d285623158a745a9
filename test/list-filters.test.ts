import { signIn, startTestService, type ApiClient, type TestService, NO_BACKGROUND_WORK } from './support/service.js';

/** Filter operators, `where[field][operator]` in REST and `where: { field: { operator } }` in GraphQL, read the same rows. */
let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  service = await startTestService(NO_BACKGROUND_WORK);
  api = await signIn(service, 'filters');
  const [{ uuid }] = await service.orm.em.getConnection().execute<{ uuid: string }[]>('select uuid from tenants where identifier = ?', ['filters']);
  await service.orm.em.getConnection().execute(
    `insert into institutions (uuid, tenant_uuid, name, country, tax_id, status, created_at, updated_at) values
       (gen_random_uuid(), ?, 'Alpha 100%', 'BR', null, 'active', '2026-01-01Z', '2026-01-01Z'),
       (gen_random_uuid(), ?, 'beta_x', 'PT', '123', 'inactive', '2026-02-01Z', '2026-03-01Z'),
       (gen_random_uuid(), ?, 'Gamma', 'BR', '456', 'suspended', '2026-03-01Z', '2026-02-01Z')`,
    [uuid, uuid, uuid],
  );
}, 120_000);
afterAll(() => service.stop());

const ALPHA = 'Alpha 100%';
const BETA = 'beta_x';
const GAMMA = 'Gamma';

/** [REST query, GraphQL where, the names it keeps in creation order]. */
const CASES: [string, Record<string, unknown>, string[]][] = [
  ['where[country][eq]=PT', { countryIs: { eq: 'PT' } }, [BETA]],
  ['where[country][ne]=BR', { countryIs: { ne: 'BR' } }, [BETA]],
  ['where[created_at][gt]=2026-02-01T00:00:00Z', { createdAt: { gt: '2026-02-01T00:00:00Z' } }, [GAMMA]],
  ['where[created_at][gte]=2026-02-01T00:00:00Z', { createdAt: { gte: '2026-02-01T00:00:00Z' } }, [BETA, GAMMA]],
  ['where[created_at][lt]=2026-02-01T00:00:00Z', { createdAt: { lt: '2026-02-01T00:00:00Z' } }, [ALPHA]],
  ['where[updated_at][lte]=2026-02-01T00:00:00Z', { updatedAt: { lte: '2026-02-01T00:00:00Z' } }, [ALPHA, GAMMA]],
  ['where[updated_at][gte]=2026-02-15T00:00:00Z', { updatedAt: { gte: '2026-02-15T00:00:00Z' } }, [BETA]],
  ['where[status][in]=inactive,suspended', { statusIs: { in: ['inactive', 'suspended'] } }, [BETA, GAMMA]],
  ['where[country][in][]=PT&where[country][in][]=XX', { countryIs: { in: ['PT', 'XX'] } }, [BETA]],
  ['where[tax_id][null]=true', { taxIdIs: { null: true } }, [ALPHA]],
  ['where[tax_id][null]=false', { taxIdIs: { null: false } }, [BETA, GAMMA]],
  ['where[name][contains]=ALPHA', { nameIs: { contains: 'ALPHA' } }, [ALPHA]],
  ['where[name][contains]=%25', { nameIs: { contains: '%' } }, [ALPHA]],
  ['where[name][contains]=_', { nameIs: { contains: '_' } }, [BETA]],
  ['where[country]=BR&where[created_at][gte]=2026-02-01T00:00:00Z', { country: 'BR', createdAt: { gte: '2026-02-01T00:00:00Z' } }, [GAMMA]],
];

describe('filter operators', () => {
  it.each(CASES)('REST %s and GraphQL read the same rows', async (query, where, names) => {
    const rest = await api.rest('GET', `/institutions?${query}&sort[column]=created_at`);
    expect(rest.status).toBe(200);
    expect(rest.body.data.map((row: { name: string }) => row.name)).toEqual(names);
    expect(rest.body.meta.total).toBe(names.length);
    const graphql = await api.graphql(
      'query($where: InstitutionWhere) { institutions(where: $where, sort: { column: created_at }) { totalCount nodes { name } } }',
      { where },
    );
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.institutions).toEqual({ totalCount: names.length, nodes: names.map((name) => ({ name })) });
  });

  it('answers unknown fields and operators with a 422 naming each', async () => {
    const response = await api.rest('GET', '/institutions?where[nope][gte]=1&where[status][gt]=active&where[legacy]=1');
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['where.legacy', 'where.nope', 'where.status.gt']);
    expect(response.body.errors['where.status.gt']).toEqual(['Unknown operator gt for status; it takes eq, ne, in, null.']);
    expect(response.body.errors['where.nope'][0]).toMatch(/^Unknown filter field nope; this list filters by .*updated_at/);
    const graphql = await api.graphql('{ institutions(where: { statusIs: { gt: active } }) { totalCount } }');
    expect(graphql.body.errors[0].message).toMatch(/gt/);
  });

  it('refuses null: true combined with other operators, and a malformed value, as 422s', async () => {
    const combined = await api.rest('GET', '/institutions?where[tax_id][null]=true&where[tax_id][eq]=1');
    expect([combined.status, combined.body.errors]).toEqual([
      422,
      { 'where.tax_id.null': ['The null operator set to true cannot be combined with other operators.'] },
    ]);
    expect((await api.rest('GET', '/institutions?where[created_at][gte]=yesterday')).status).toBe(422);
  });
});
