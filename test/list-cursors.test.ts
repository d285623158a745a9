import { signIn, startTestService, type ApiClient, type TestService, NO_BACKGROUND_WORK } from './support/service.js';

/**
 * Keyset cursors: a walk through a 500-row list stays exact while rows are inserted and deleted
 * between every page — every row that existed throughout appears once, no row twice, and rows
 * inserted behind the walk never show up. Offset cursors repeat a row after each page here (two rows
 * inserted ahead of the position, one deleted behind it).
 */
let service: TestService;
let api: ApiClient;
let tenantUuid: string;

const SEEDED = 500;
const PER_PAGE = 50;

beforeAll(async () => {
  service = await startTestService(NO_BACKGROUND_WORK);
  api = await signIn(service, 'walker');
  [{ uuid: tenantUuid }] = await sql<{ uuid: string }>('select uuid from tenants where identifier = ?', ['walker']);
  // Pairs share a creation time (microseconds included) and a name, so ties are broken by uuid.
  await sql(
    `insert into institutions (uuid, tenant_uuid, created_at, updated_at, name, country)
     select gen_random_uuid(), ?, timestamptz '2026-01-01 00:00:00.000001+00' + (i / 2) * interval '1.000001 second', now(),
            'Seeded ' || lpad((i / 2)::text, 4, '0'), 'BR'
     from generate_series(1, ?) i`,
    [tenantUuid, SEEDED],
  );
}, 120_000);
afterAll(() => service.stop());

function sql<R extends object = object>(text: string, values: unknown[] = []): Promise<R[]> {
  return service.orm.em.getConnection().execute<R[]>(text, values);
}

const liveUuids = async () =>
  (await sql<{ uuid: string }>('select uuid from institutions where tenant_uuid = ? and deleted_at is null', [tenantUuid])).map((row) => row.uuid);

/** Between two pages: two rows where the walk has not been (`ahead`), one seen row and one unseen row deleted. */
async function disturb(seen: string[], unseen: Set<string>, inserted: string, deleted: Set<string>) {
  const [name, created] = inserted === 'head' ? ['AAA inserted', "now() + interval '1 day'"] : ['zzz inserted', "timestamptz '2000-01-01'"];
  await sql(
    `insert into institutions (uuid, tenant_uuid, created_at, updated_at, name, country)
     select gen_random_uuid(), ?, ${created}, now(), ?, 'BR' from generate_series(1, 2)`,
    [tenantUuid, name],
  );
  const behind = seen.find((uuid) => !deleted.has(uuid));
  const ahead = [...unseen].find((uuid) => !deleted.has(uuid) && !seen.includes(uuid));
  for (const uuid of [behind, ahead]) {
    if (!uuid) continue;
    deleted.add(uuid);
    await sql('update institutions set deleted_at = now() where uuid = ?', [uuid]);
  }
}

type PageReader = (cursor: string | undefined) => Promise<{ uuids: string[]; next: string | undefined }>;

/** Walks the whole list with `read`, disturbing it between pages; checks the walk against the rows that lived throughout. */
async function walk(read: PageReader, inserted: 'head' | 'tail') {
  const before = new Set(await liveUuids());
  const seen: string[] = [];
  const deleted = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const { uuids, next } = await read(cursor);
    seen.push(...uuids);
    if (!next) break;
    cursor = next;
    await disturb(seen, before, inserted, deleted);
  }
  const throughout = [...before].filter((uuid) => !deleted.has(uuid));
  const seenOnce = new Set(seen);
  expect(seen.length).toBe(seenOnce.size);
  expect(throughout.filter((uuid) => !seenOnce.has(uuid))).toEqual([]);
  // Nothing inserted during the walk (all of it behind the walk) and nothing deleted before its page shows.
  expect(seen.filter((uuid) => !before.has(uuid))).toEqual([]);
  expect(deleted.size).toBeGreaterThan(SEEDED / PER_PAGE);
}

const SORTS = [
  { column: 'created_at', order: 'desc' },
  { column: 'name', order: 'asc' },
] as const;

describe('keyset cursors under concurrent writes', () => {
  it.each(SORTS)('REST: following links.next by %o never repeats or skips a row', async (sort) => {
    const read: PageReader = async (cursor) => {
      const query = cursor ?? `per_page=${PER_PAGE}&sort[column]=${sort.column}&sort[order]=${sort.order}&cursor=`;
      const response = await api.rest('GET', `/institutions?${query}`);
      expect(response.status).toBe(200);
      const next = response.body.links.next as string | null;
      return { uuids: response.body.data.map((row: { uuid: string }) => row.uuid), next: next ? next.split('?')[1] : undefined };
    };
    await walk(read, 'head');
  });

  it.each(SORTS)('GraphQL: following endCursor by %o never repeats or skips a row', async (sort) => {
    const read: PageReader = async (after) => {
      const response = await api.graphql(
        `query($after: String, $sort: InstitutionSort) { institutions(first: ${PER_PAGE}, after: $after, sort: $sort) {
          nodes { uuid } pageInfo { hasNextPage endCursor } } }`,
        { after, sort },
      );
      expect(response.body.errors).toBeUndefined();
      const { nodes, pageInfo } = response.body.data.institutions;
      return { uuids: nodes.map((node: { uuid: string }) => node.uuid), next: pageInfo.hasNextPage ? pageInfo.endCursor : undefined };
    };
    await walk(read, 'head');
  });

  it('GraphQL: walking backwards from the tail with last/before never repeats or skips a row', async () => {
    const read: PageReader = async (before) => {
      const response = await api.graphql(
        `query($before: String) { institutions(last: ${PER_PAGE}, before: $before, sort: { column: name }) {
          nodes { uuid } pageInfo { hasPreviousPage startCursor } } }`,
        { before },
      );
      expect(response.body.errors).toBeUndefined();
      const { nodes, pageInfo } = response.body.data.institutions;
      return { uuids: nodes.map((node: { uuid: string }) => node.uuid).reverse(), next: pageInfo.hasPreviousPage ? pageInfo.startCursor : undefined };
    };
    await walk(read, 'tail');
  });

  it('REST: links.prev leads back to the previous page', async () => {
    const first = await api.rest('GET', `/institutions?per_page=5&sort[column]=name&cursor=`);
    const second = await api.rest('GET', `/institutions?${(first.body.links.next as string).split('?')[1]}`);
    expect(second.body.meta).toMatchObject({ per_page: 5, total: expect.any(Number), next_cursor: expect.any(String), prev_cursor: expect.any(String) });
    const back = await api.rest('GET', `/institutions?${(second.body.links.prev as string).split('?')[1]}`);
    expect(back.body.data).toEqual(first.body.data);
    expect(back.body.links.prev).toBeNull();
  });

  it('GraphQL: last without before reads the tail in reversed order in one statement, without counting the list', async () => {
    const from = service.statements.length;
    const response = await api.graphql('{ institutions(last: 3, sort: { column: name }) { nodes { name } pageInfo { hasNextPage hasPreviousPage } } }');
    const statements = service.statements.slice(from).filter((text) => /institutions/.test(text));
    expect(response.body.data.institutions.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/order by t\."name" desc, t\."uuid" desc/);
    expect(statements[0]).not.toMatch(/count\(/);
  });
});

describe('cursor refusals', () => {
  it('answers an edited, malformed or foreign-sort cursor with a 422 naming the argument, in both styles', async () => {
    const first = await api.graphql('{ institutions(first: 1, sort: { column: name }) { pageInfo { endCursor } } }');
    const cursor = first.body.data.institutions.pageInfo.endCursor as string;
    const text = Buffer.from(cursor, 'base64url').toString();
    // The uuid's last digit changed: a well-formed key that its digest no longer matches.
    const edited = Buffer.from(`${text.slice(0, -3)}${text.at(-3) === 'a' ? 'b' : 'a'}${text.slice(-2)}`).toString('base64url');
    const query = 'query($after: String, $sort: InstitutionSort) { institutions(first: 1, after: $after, sort: $sort) { nodes { uuid } } }';
    for (const after of [edited, 'garbage', cursor.slice(0, -3)]) {
      const response = await api.graphql(query, { after, sort: { column: 'name' } });
      expect(response.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { after: ['The after cursor is invalid.'] } });
    }
    const foreign = await api.graphql(query, { after: cursor, sort: { column: 'created_at' } });
    expect(foreign.body.errors[0].extensions.errors.after).toEqual(['The after cursor belongs to another sort order; page with the sort it was made for.']);
    const rest = await api.rest('GET', `/institutions?cursor=${edited}`);
    expect([rest.status, rest.body.errors]).toEqual([422, { cursor: ['The cursor is invalid.'] }]);
  });
});
