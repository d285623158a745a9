import { analyzedPlan, rowsProduced, startSeededService } from './support/plans.js';
import type { ApiClient, TestService } from './support/service.js';

/**
 * A page with includes reads only the related rows its rows point at, by key: with a catalogue of
 * 3,000 courses, a page of 50 enrollments reads at most 51 course rows (one per enrollment read) and never scans courses.
 */
let service: TestService;
let acme: ApiClient;
let tenantUuid: string;

beforeAll(async () => {
  ({ service, acme, tenantUuid } = await startSeededService(async (client, tenantUuid) => {
    await client.query(
      `with i as (insert into institutions (uuid, created_at, updated_at, tenant_uuid, name, country) values (gen_random_uuid(), now(), now(), $1, 'U', 'BR') returning uuid)
       insert into courses (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name) select gen_random_uuid(), now(), now(), $1, i.uuid, 'Course ' || n from i, generate_series(1, 3000) n`,
      [tenantUuid],
    );
    await client.query(
      `insert into students (uuid, created_at, updated_at, tenant_uuid, name, email, date_of_birth) select gen_random_uuid(), now(), now(), $1, 'S ' || n, 's' || n || '@key.test', date '2000-01-01' from generate_series(1, 200) n`,
      [tenantUuid],
    );
    await client.query(
      `insert into enrollments (uuid, created_at, updated_at, tenant_uuid, student_uuid, course_uuid, enrolled_at)
       select gen_random_uuid(), now(), now(), $1, s.uuid, c.uuid, now()
       from (select uuid, row_number() over () as n from students where tenant_uuid = $1) s join (select uuid, row_number() over () as n from courses where tenant_uuid = $1) c on c.n = s.n * 7`,
      [tenantUuid],
    );
  }));
}, 120_000);
afterAll(() => service.stop());

test('a page with includes reads each related course by key, not the catalogue', async () => {
  service.statements.length = 0;
  const response = await acme.rest('GET', '/enrollments?per_page=50&includes[course]=1&includes[student]=1');
  expect(response.status).toBe(200);
  expect(response.body.data).toHaveLength(50);
  expect(response.body.data[0].course.name).toMatch(/^Course /);
  const statement = service.statements.find((sql) => sql.includes('from "enrollments"') && sql.includes('related_'));
  expect(statement).toBeDefined();
  // Run as the service runs it: a generic plan (the named statement is planned once per connection).
  const plan = await analyzedPlan(service.database.url, statement!, [tenantUuid], { generic: true });
  expect(plan).not.toMatch(/Seq Scan on courses/);
  const courseRows = rowsProduced(plan, /Scan.* on courses/);
  // One course per enrollment read: the page's 50 and the one more that tells whether a next page exists.
  expect(courseRows.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(51);
});
