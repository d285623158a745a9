/**
 * Issue 3: a 50-row enrollment page with its student, course and cohort, through REST, through
 * GraphQL, and through one hand-written SQL query behind a plain Express handler, on 10,000
 * students and 20,000 enrollments of one tenant.
 */
import express from 'express';
import pg from 'pg';
import { seedCatalogue, STUDENTS, ENROLLMENTS } from './seed.js';
import { listenLocal, measure, printTable, type BenchEnv, type Row } from './support.js';

const TARGET_RATIO = 0.5;

const REST_PATH = '/api/v1/enrollments?per_page=50&includes[student]=1&includes[course]=1&includes[cohort]=1';

const GRAPHQL_QUERY = `{ enrollments(first: 50) { totalCount nodes { uuid completionStatus grade enrolledAt completedAt createdAt updatedAt
  student { uuid name email dateOfBirth gender socialName createdAt updatedAt }
  course { uuid name code description workload isActive createdAt updatedAt }
  cohort { uuid code modality startDate endDate createdAt updatedAt } } } }`;

// Page first, then join: the fastest honest shape of the same page and total in one statement (the
// total as a scalar subquery, as the service does, so the page can stop at its limit).
const PAGE_SQL = `
  with page as (
    select e.*, (select count(*) from enrollments t where t.tenant_uuid = $1 and t.deleted_at is null) as total_count
    from enrollments e
    where e.tenant_uuid = $1 and e.deleted_at is null
    order by e.uuid limit 50
  )
  select e.total_count, e.uuid, e.completion_status as "completionStatus", e.grade::float8 as grade, e.enrolled_at as "enrolledAt",
    e.completed_at as "completedAt", e.created_at as "createdAt", e.updated_at as "updatedAt",
    s.uuid as "student.uuid", s.name as "student.name", s.email as "student.email", s.date_of_birth::text as "student.dateOfBirth",
    s.gender as "student.gender", s.social_name as "student.socialName", s.created_at as "student.createdAt", s.updated_at as "student.updatedAt",
    c.uuid as "course.uuid", c.name as "course.name", c.code as "course.code", c.description as "course.description",
    c.workload as "course.workload", c.is_active as "course.isActive", c.created_at as "course.createdAt", c.updated_at as "course.updatedAt",
    h.uuid as "cohort.uuid", h.code as "cohort.code", h.modality as "cohort.modality", h.start_date as "cohort.startDate",
    h.end_date as "cohort.endDate", h.created_at as "cohort.createdAt", h.updated_at as "cohort.updatedAt"
  from page e
  join students s on s.uuid = e.student_uuid
  join courses c on c.uuid = e.course_uuid
  left join cohorts h on h.uuid = e.cohort_uuid
  order by e.uuid`;

type Flat = Record<string, unknown>;

/** `{"student.uuid": x}` → `{student: {uuid: x}}`; a missing cohort becomes null. */
function nest(row: Flat): Flat {
  const node: Flat = {};
  for (const [key, value] of Object.entries(row)) {
    const [outer, inner] = key.split('.');
    if (inner === undefined) node[outer!] = value;
    else ((node[outer!] as Flat | undefined) ??= {})[inner] = value;
  }
  if ((node.cohort as Flat).uuid === null) node.cohort = null;
  return node;
}

function baselineApp(pool: pg.Pool, tenantUuid: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/enrollments', async (_req, res) => {
    const { rows } = await pool.query<Flat>(PAGE_SQL, [tenantUuid]);
    const totalCount = Number(rows[0]?.total_count ?? 0);
    res.json({ data: { totalCount, nodes: rows.map(({ total_count: _, ...row }) => nest(row)) } });
  });
  return app;
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  return response.json();
}

interface Page {
  style: string;
  uuids: string[];
  total: unknown;
}

/** One request per style before measuring: 50 rows each, the same uuids, the same total. */
async function verifySamePage(env: BenchEnv, baselineUrl: string, graphqlInit: RequestInit): Promise<void> {
  const rest = await env.withStatements(() => json(`${env.url}${REST_PATH}`, { headers: env.auth }));
  const graphql = await env.withStatements(() => json(`${env.url}/graphql`, graphqlInit));
  console.log(`SQL statements per request: REST ${rest.statements.length}, GraphQL ${graphql.statements.length}, raw SQL 1`);
  if (process.env.BENCH_SQL) console.log(graphql.statements.join('\n'));
  if (graphql.result.errors) console.warn('WARNING: GraphQL errors:', JSON.stringify(graphql.result.errors).slice(0, 500));
  const baseline = await json(`${baselineUrl}/enrollments`);
  const uuids = (nodes: { uuid: string }[] | undefined) => (nodes ?? []).map((node) => node.uuid);
  const pages: Page[] = [
    { style: 'REST', uuids: uuids(rest.result.data), total: rest.result.meta?.total },
    { style: 'GraphQL', uuids: uuids(graphql.result.data?.enrollments?.nodes), total: graphql.result.data?.enrollments?.totalCount },
    { style: 'raw SQL', uuids: uuids(baseline.data.nodes), total: baseline.data.totalCount },
  ];
  const expected = pages[2]!.uuids.join();
  const differing = pages.filter(({ uuids, total }) => uuids.length !== 50 || uuids.join() !== expected || total !== ENROLLMENTS);
  for (const { style, uuids, total } of differing) {
    console.warn(`WARNING: the ${style} page differs: ${uuids.length} rows, total ${total}, same uuids as raw SQL: ${uuids.join() === expected}`);
  }
  if (differing.length === 0) console.log(`page check: REST, GraphQL and raw SQL return the same 50 uuids of ${ENROLLMENTS} enrollments`);
}

export async function runListsBench(env: BenchEnv): Promise<Row[]> {
  const seeded = await seedCatalogue(env.databaseUrl, env.tenant.uuid);
  console.log(
    `\nseeded ${STUDENTS} students, ${ENROLLMENTS} enrollments, ${seeded.courses} courses, ${seeded.cohorts} cohorts in ${seeded.seconds.toFixed(1)} s`,
  );
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 20 });
  const local = await listenLocal(baselineApp(pool, env.tenant.uuid));
  const graphql = {
    url: `${env.url}/graphql`,
    method: 'POST' as const,
    headers: { ...env.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query: GRAPHQL_QUERY }),
  };
  try {
    await verifySamePage(env, local.url, graphql);
    const baseline = await measure(env, '(c) raw SQL + plain Express', { url: `${local.url}/enrollments` });
    const rest = await measure(env, '(a) REST GET /enrollments', { url: `${env.url}${REST_PATH}`, headers: env.auth });
    const gql = await measure(env, '(b) GraphQL enrollments(first: 50)', graphql);
    const rows = [baseline, rest, gql];
    printTable('lists: 50 enrollments with student, course, cohort', rows, baseline);
    for (const row of [rest, gql]) {
      const ratio = row.rps / baseline.rps;
      console.log(`${row.name}: ${ratio.toFixed(2)}x baseline (target >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'})`);
    }
    return rows;
  } finally {
    await local.close();
    await pool.end();
  }
}
