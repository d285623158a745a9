import { withClient } from '../src/db/database-roles.js';
import { EXACT_TOTAL_LIMIT } from '../src/db/page-statement.js';
import { analyzedPlan, rowsProduced, startSeededService } from './support/plans.js';
import type { ApiClient, TestService } from './support/service.js';

/**
 * A filtered list's total is counted up to EXACT_TOTAL_LIMIT rows and estimated past it: the page's
 * statement never reads more rows for its total than the limit, however many match, and the answer
 * says whether its total is exact. 20,000 students: 15,000 `female`, 5,000 `male`.
 */
let service: TestService;
let acme: ApiClient;
let tenantUuid: string;

beforeAll(async () => {
  ({ service, acme, tenantUuid } = await startSeededService(async (client, tenantUuid) => {
    await client.query(
      `insert into students (uuid, created_at, updated_at, tenant_uuid, name, email, date_of_birth, gender)
       select gen_random_uuid(), now(), now(), $1, 'Student ' || n, 'student' || n || '@totals.test', date '2000-01-01',
         case when n % 4 = 0 then 'male' else 'female' end
       from generate_series(1, 20000) n`,
      [tenantUuid],
    );
  }));
}, 120_000);
afterAll(() => service.stop());

const TOTALS = `query($where: StudentWhere) { students(first: 10, where: $where) { totalCount totalCountIsEstimate pageInfo { hasNextPage } nodes { uuid } } }`;

async function totals(where?: Record<string, unknown>) {
  const { body } = await acme.graphql(TOTALS, where ? { where } : {});
  expect(body.errors).toBeUndefined();
  return body.data.students as { totalCount: number; totalCountIsEstimate: boolean; pageInfo: { hasNextPage: boolean }; nodes: unknown[] };
}

test('past the limit a filtered total is an estimate, said so, and the statement reads at most the limit plus one row for it', async () => {
  service.statements.length = 0;
  const female = await totals({ gender: 'female' });
  expect(female.totalCountIsEstimate).toBe(true);
  expect(female.totalCount).toBeGreaterThan(EXACT_TOTAL_LIMIT);
  expect(female.totalCount).toBeLessThanOrEqual(20_000); // never above the tenant's live rows
  expect(female.pageInfo.hasNextPage).toBe(true);
  const statement = service.statements.find((sql) => sql.includes('from "students"') && sql.includes('list_total'));
  expect(statement).toBeDefined();
  const plan = await analyzedPlan(service.database.url, statement!, [tenantUuid, 'female']);
  expect(Math.max(...rowsProduced(plan))).toBeLessThanOrEqual(EXACT_TOTAL_LIMIT + 1);

  const rest = await acme.rest('GET', '/students?per_page=10&where[gender]=female');
  expect(rest.body.meta).toMatchObject({ total: female.totalCount, total_is_estimate: true });
});

test('up to the limit, and for the whole list, the total is exact', async () => {
  expect(await totals({ gender: 'male' })).toMatchObject({ totalCount: 5_000, totalCountIsEstimate: false });
  expect(await totals()).toMatchObject({ totalCount: 20_000, totalCountIsEstimate: false });
  const rest = await acme.rest('GET', '/students?per_page=10&where[gender]=male');
  expect(rest.body.meta).toMatchObject({ total: 5_000, total_is_estimate: false, last_page: 500 });
});

test('a page number past the middle is read from the end: the same rows as OFFSET, and no statement reads more than the skipped tail', async () => {
  const uuidsAt = (order: string, offset: number) =>
    withClient(service.database.ownerUrl, async (client) =>
      (
        await client.query<{ uuid: string }>(`select uuid from students where tenant_uuid = $1 and deleted_at is null order by ${order} offset $2 limit 10`, [
          tenantUuid,
          offset,
        ])
      ).rows.map((row) => row.uuid),
    );
  for (const [query, order] of [
    ['', 'uuid'],
    ['&sort[column]=name&sort[order]=desc', 'name desc, uuid desc'],
  ] as const) {
    for (const page of [2_000, 1_990, 1_200]) {
      service.queries.length = 0;
      const { status, body } = await acme.rest('GET', `/students?per_page=10&page=${page}${query}`);
      expect(status).toBe(200);
      expect(body.data.map((student: { uuid: string }) => student.uuid)).toEqual(await uuidsAt(order, (page - 1) * 10));
      expect(body.meta).toMatchObject({ current_page: page, total: 20_000, last_page: 2_000 });
      const reads = service.queries.filter(({ sql }) => sql.includes('from "students"'));
      expect(reads.length).toBeGreaterThan(0);
      const produced = await Promise.all(
        reads.map(({ sql, values }) => analyzedPlan(service.database.url, sql, [...values]).then((plan) => Math.max(...rowsProduced(plan)))),
      );
      // What lies between the page and the list's end, plus the page and a row: never the 11,990 rows before page 1,200.
      expect(Math.max(...produced)).toBeLessThanOrEqual(20_000 - (page - 1) * 10 + 1);
    }
  }
  const past = await acme.rest('GET', '/students?per_page=10&page=2001');
  expect(past.body).toMatchObject({ data: [], meta: { total: 20_000 } });
});
