import {
  getNamedType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isScalarType,
} from 'graphql';
import type pg from 'pg';
import { getMetadataStorage } from 'type-graphql';
import { withClient } from '../src/db/database-roles.js';
import { createSchema } from '../src/graphql/schema.js';
import { startSeededService } from './support/plans.js';
import { signIn, type ApiClient, type TestService } from './support/service.js';

/**
 * Issue 31: every filter of every list is backed by an index where the list would otherwise scan.
 * 20,000 rows a collection for one tenant (and a few for another, so the tenant condition selects),
 * analysed; then, for every field of every `<plural>(where:)` list of the schema, the GraphQL request
 * filters by a value no row has (where an index matters most: equality for a plain field, `in` or
 * `gte` past every value for an operator field), and each statement the service sent for it is run
 * under EXPLAIN ANALYZE with its values: no plan may read the listed table by a sequential scan, nor
 * through an index that reads rows only to discard them (the tenant's list index with the filter
 * checked row by row). A field without an index fails here: add it to the entity's `LiveFilterIndexes`
 * and write the migration (test/schema.test.ts checks they agree).
 */
const ROWS = 20_000;
const OTHER_TENANT_ROWS = 1_000;

/**
 * Fields no index serves, and why. A new field is probed unless its type is named here.
 * - Booleans: either value matches a large share of the rows, so the planner reads the table anyway.
 * - `contains` (ILIKE '%…%') is not probed: a btree cannot serve it. pg_trgm is available in the
 *   embedded PostgreSQL, but a trigram index on every text column would cost every write for a rarely
 *   used operator; such a list reads the tenant's rows until its page is full (all of them when few
 *   match) and counts at most 10,001 matches.
 * - `ne` and `null: false` match most rows: a scan is the right plan for them. Ranges on text and the
 *   `…Is` operators use the same index as the field's equality.
 */
const EXEMPT_TYPES = new Set(['Boolean', 'BooleanFilter']);

/**
 * Lists whose rows a tenant holds few of: its webhook endpoints (one per receiving system). Every
 * other list of the schema must have a seed below, or the test fails.
 */
const SMALL_LISTS: Record<string, string> = { webhooks: 'a tenant’s webhook endpoints, one per receiving system' };

/** Bulk rows for `$1` (tenant) and `$2` (how many), parents first. Enum columns leave their last value unused: the probes ask for it. */
const SEEDS: [table: string, sql: string][] = [
  [
    'institutions',
    `insert into institutions (uuid, created_at, updated_at, tenant_uuid, name, country, tax_id, external_id, status, is_badges_enabled)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, 'Institution ' || n, (array['BR','PT','ES','AR'])[1 + n % 4],
       'TAX-' || n, 'inst-' || n, (array['active','inactive'])[1 + n % 2]::institution_status, n % 2 = 0
     from generate_series(1, $2::int) n`,
  ],
  [
    'modules',
    `with p as (select array_agg(uuid) a from (select uuid from institutions where tenant_uuid = $1 limit 1000) i)
     insert into modules (uuid, created_at, updated_at, tenant_uuid, institution_uuid, code, name, workload, credits, modality, level)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, p.a[1 + n % array_length(p.a, 1)], 'M' || n, 'Module ' || n,
       n % 200, n % 10, (array['in_person','online'])[1 + n % 2]::module_modality, (array['undergraduate','graduate','technical'])[1 + n % 3]::module_level
     from p, generate_series(1, $2::int) n`,
  ],
  [
    'courses',
    `with p as (select array_agg(uuid) a from (select uuid from institutions where tenant_uuid = $1 limit 1000) i)
     insert into courses (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name, code, workload, external_id)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, p.a[1 + n % array_length(p.a, 1)], 'Course ' || n, 'C' || n, n % 400, 'course-' || n
     from p, generate_series(1, $2::int) n`,
  ],
  [
    'cohorts',
    `with p as (select array_agg(uuid) a from (select uuid from courses where tenant_uuid = $1 limit 1000) c)
     insert into cohorts (uuid, created_at, updated_at, tenant_uuid, course_uuid, code, modality, start_date, end_date)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, p.a[1 + n % array_length(p.a, 1)], 'K' || n,
       (array['presential','remote'])[1 + n % 2]::cohort_modality, now() - n * interval '1 hour', now() - n * interval '1 hour' + interval '1 year'
     from p, generate_series(1, $2::int) n`,
  ],
  [
    'module_groups',
    `with p as (select array_agg(uuid) a from (select uuid from courses where tenant_uuid = $1 limit 1000) c)
     insert into module_groups (uuid, created_at, updated_at, tenant_uuid, course_uuid, name, "order")
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, p.a[1 + n % array_length(p.a, 1)], 'Group ' || n, n % 20
     from p, generate_series(1, $2::int) n`,
  ],
  [
    'students',
    `insert into students (uuid, created_at, updated_at, tenant_uuid, name, email, date_of_birth, gender, social_name, external_id)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, 'Student ' || n, 'student' || n || '@plans.test', date '2000-01-01' + n % 3000,
       (array['female','male'])[1 + n % 2], 'Social ' || n, 'student-' || n
     from generate_series(1, $2::int) n`,
  ],
  [
    'enrollments',
    `with s as (select array_agg(uuid) a from (select uuid from students where tenant_uuid = $1 limit 5000) s),
          c as (select array_agg(uuid) a from (select uuid from courses where tenant_uuid = $1 limit 1000) c),
          k as (select array_agg(uuid) a from (select uuid from cohorts where tenant_uuid = $1 limit 1000) k)
     insert into enrollments (uuid, created_at, updated_at, tenant_uuid, student_uuid, course_uuid, cohort_uuid, completion_status, grade, enrolled_at, completed_at)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, s.a[1 + n % array_length(s.a, 1)], c.a[1 + n % array_length(c.a, 1)],
       k.a[1 + n % array_length(k.a, 1)], (array['enrolled','completed'])[1 + n % 2]::completion_status, (n % 1000) / 100.0,
       now() - n * interval '1 hour', now() - n * interval '1 hour' + interval '200 days'
     from s, c, k, generate_series(1, $2::int) n`,
  ],
  [
    'certificate_templates',
    `with p as (select array_agg(uuid) a from (select uuid from institutions where tenant_uuid = $1 limit 1000) i)
     insert into certificate_templates (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name, version, path, status)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, p.a[1 + n % array_length(p.a, 1)], 'Template ' || n, '1.' || n % 50,
       '/templates/' || n || '.pdf', 'active'
     from p, generate_series(1, $2::int) n`,
  ],
  [
    'files',
    `insert into files (uuid, created_at, updated_at, tenant_uuid, original_name, mime_type, extension, size, used_at, hash, storage)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, 'diploma-' || n || '.pdf', 'application/pdf', 'pdf', 1000 + n % 100000,
       case when n % 2 = 0 then now() - n * interval '1 minute' end, md5(n::text), 'postgres'
     from generate_series(1, $2::int) n`,
  ],
  [
    'certificates',
    `with i as (select array_agg(uuid) a from (select uuid from institutions where tenant_uuid = $1 limit 1000) i),
          c as (select array_agg(uuid) a from (select uuid from courses where tenant_uuid = $1 limit 1000) c),
          s as (select array_agg(uuid) a from (select uuid from students where tenant_uuid = $1 limit 5000) s)
     insert into certificates (uuid, created_at, updated_at, tenant_uuid, institution_uuid, course_uuid, student_uuid, status, issued_at, revoked_at, expires_at, external_id, blockchain_tx_hash)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, i.a[1 + n % array_length(i.a, 1)], c.a[1 + n % array_length(c.a, 1)],
       s.a[1 + n % array_length(s.a, 1)], (array['draft','issued','revoked'])[1 + n % 3]::certificate_status,
       case when n % 3 > 0 then now() - n * interval '1 minute' end, case when n % 3 = 2 then now() - n * interval '30 seconds' end,
       now() - n * interval '1 minute' + interval '5 years', 'cert-' || n, case when n % 3 = 1 then md5(n::text) end
     from i, c, s, generate_series(1, $2::int) n`,
  ],
  [
    'portfolio_pages',
    `with s as (select array_agg(uuid) a from (select uuid from students where tenant_uuid = $1 limit 5000) s)
     insert into portfolio_pages (uuid, created_at, updated_at, tenant_uuid, student_uuid, slug)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, s.a[1 + n % array_length(s.a, 1)], 'page-' || n
     from s, generate_series(1, $2::int) n`,
  ],
  [
    'portfolio_items',
    // Each certificate on one page, as portfolios show them (a certificate on a hundred pages would make
    // the planner expect a hundred matches for any certificate and read the list in uuid order instead).
    `with p as (select array_agg(uuid) a from (select uuid from portfolio_pages where tenant_uuid = $1 limit 1000) p),
          c as (select uuid, row_number() over () as n from certificates where tenant_uuid = $1)
     insert into portfolio_items (uuid, created_at, updated_at, tenant_uuid, page_uuid, certificate_uuid, sort_order)
     select gen_random_uuid(), now() - c.n * interval '1 minute', now() - c.n * interval '1 minute', $1, p.a[1 + c.n % array_length(p.a, 1)], c.uuid, c.n % 50
     from p, c where c.n <= $2::int`,
  ],
  [
    'jobs',
    // Leased (locked_until set), so the queue's trigger schedules none of them.
    `insert into jobs (uuid, created_at, updated_at, tenant_uuid, kind, status, total, done, client_id, payload, results, finished_at, locked_until)
     select gen_random_uuid(), now() - n * interval '1 minute', now() - n * interval '1 minute', $1, 'certificate_batch', (array['queued','running'])[1 + n % 2]::job_status,
       10, 10, 'client', '{}', '[]', now() - n * interval '1 minute', now() + interval '1 day'
     from generate_series(1, $2::int) n`,
  ],
];

/**
 * Runs `load` on `table` with its indexes dropped, then builds them again as they were: one sort per
 * index instead of 20,000 insertions into each (a few times faster). The plans then use exactly the
 * indexes the migrations made. Constraints' own indexes (the primary key) stay.
 */
async function withIndexesRebuilt(client: pg.Client, table: string, load: () => Promise<unknown>): Promise<void> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `select indexname as name, indexdef as definition from pg_indexes
     where schemaname = current_schema() and tablename = $1 and indexname not in (select conname from pg_constraint where conrelid = to_regclass($1))`,
    [table],
  );
  for (const { name } of rows) await client.query(`drop index ${client.escapeIdentifier(name)}`);
  await load();
  for (const { definition } of rows) await client.query(definition);
}

const seed = async (client: pg.Client, tenantUuid: string, rows: number, bulk: boolean) => {
  for (const [table, sql] of SEEDS) {
    const load = () => client.query(sql, [tenantUuid, rows]);
    await (bulk ? withIndexesRebuilt(client, table, load) : load());
  }
};

let service: TestService;
let acme: ApiClient;
let schema: GraphQLSchema;

beforeAll(async () => {
  ({ service, acme } = await startSeededService((client, tenantUuid) => seed(client, tenantUuid, ROWS, true)));
  const globex = await signIn(service, 'globex');
  await withClient(service.database.ownerUrl, async (client) => {
    const uuid = (await client.query<{ uuid: string }>(`select uuid from tenants where identifier = $1`, [globex.tenant])).rows[0]!.uuid;
    await seed(client, uuid, OTHER_TENANT_ROWS, false);
    await client.query('analyze');
  });
  schema = await createSchema();
}, 240_000);
afterAll(() => service.stop());

/** Every root list with a `where` argument: `[field, where input]`. */
function filteredLists(): [GraphQLField<unknown, unknown>, GraphQLInputObjectType][] {
  return Object.values(schema.getQueryType()!.getFields()).flatMap((field) => {
    const where = field.args.find((arg) => arg.name === 'where');
    return where && isInputObjectType(getNamedType(where.type)) ? [[field, getNamedType(where.type) as GraphQLInputObjectType]] : [];
  });
}

const NO_MATCH = { uuid: '00000000-0000-4000-8000-000000000000', text: 'zz-no-such-value', time: '2999-01-01T00:00:00.000000Z', number: 2_000_000_000 };

/** A value of the field's type that matches (almost) nothing, as its filter takes it; undefined when the field is exempt. */
function probe(field: GraphQLInputField): unknown {
  const type = getNamedType(field.type as GraphQLInputType);
  if (EXEMPT_TYPES.has(type.name)) return undefined;
  const rare = (valueType: GraphQLInputType): unknown => {
    const named = getNamedType(valueType);
    if (isEnumType(named)) return (named as GraphQLEnumType).getValues().at(-1)!.value;
    if (named.name === 'ID') return NO_MATCH.uuid;
    if (named.name === 'String') return NO_MATCH.text;
    if (named.name === 'DateTime' || named.name === 'Date') return NO_MATCH.time;
    if (named.name === 'Int' || named.name === 'Float') return NO_MATCH.number;
    throw new Error(`no probe for ${named.name} (${field.name})`);
  };
  if (isScalarType(type) || isEnumType(type)) return rare(type);
  const operators = (type as GraphQLInputObjectType).getFields();
  // Ordered values: a range past every value; others: a list of values none of the rows has.
  if ('gte' in operators && !('contains' in operators)) return { gte: rare(operators.gte!.type) };
  return { in: [rare(operators.in!.type)] };
}

/** The statements a request sent that read `table`, with their values. */
async function statementsOf(request: () => Promise<unknown>, table: string) {
  service.queries.length = 0;
  await request();
  return service.queries.filter(({ sql }) => new RegExp(`from "${table}"`).test(sql));
}

/** `?` placeholders (the query builder's) as `$n`, so EXPLAIN binds the values. */
function numbered(sql: string): string {
  let placeholder = 0;
  return sql.includes('$1') ? sql : sql.replace(/\?/g, () => `$${++placeholder}`);
}

/** A plan node of EXPLAIN (ANALYZE, FORMAT JSON), as much of it as this test reads. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows of the listed table a plan may read and throw away: a probe matches nothing, so an index finds next to none. */
const MAX_DISCARDED = 1_000;

/**
 * What is wrong with each statement's plan, run with its values: a sequential scan of `table`, or an
 * index scan of it that reads rows only to discard them (the tenant's list index with the filter
 * checked row by row is a scan too).
 */
async function scans(table: string, statements: { sql: string; values: readonly unknown[] }[]): Promise<string[]> {
  return withClient(service.database.url, async (client) => {
    const found: string[] = [];
    for (const { sql, values } of statements) {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${numbered(sql)}`, values as unknown[]);
      const visit = (node: PlanNode) => {
        if (node['Relation Name'] === table) {
          const discarded = ((node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);
          if (node['Node Type'] === 'Seq Scan') found.push(`Seq Scan on ${table}`);
          else if (discarded > MAX_DISCARDED) found.push(`${node['Node Type']} using ${node['Index Name'] ?? '?'} discarded ${discarded} rows`);
        }
        for (const child of node.Plans ?? []) visit(child);
      };
      visit(rows[0]!['QUERY PLAN'][0].Plan);
    }
    return found;
  });
}

test('every filter of every list reads its table through an index on 20,000 rows a collection', async () => {
  const tables = new Set(SEEDS.map(([table]) => table));
  const failures: string[] = [];
  let probed = 0;
  for (const [list, where] of filteredLists()) {
    if (list.name in SMALL_LISTS) continue;
    const node = getNamedType((getNamedType(list.type) as GraphQLObjectType).getFields().nodes!.type);
    const table = tableOf(node.name);
    expect([list.name, tables.has(table)]).toEqual([list.name, true]);
    for (const field of Object.values(where.getFields())) {
      const value = probe(field);
      if (value === undefined) continue;
      const query = `query($where: ${where.name}) { ${list.name}(first: 15, where: $where) { totalCount nodes { uuid } } }`;
      const statements = await statementsOf(async () => {
        const response = await acme.graphql(query, { where: { [field.name]: value } });
        expect([list.name, field.name, response.body.errors]).toEqual([list.name, field.name, undefined]);
      }, table);
      expect([list.name, field.name, statements.length > 0]).toEqual([list.name, field.name, true]);
      probed++;
      for (const scan of await scans(table, statements)) failures.push(`${list.name}.${field.name} ${JSON.stringify(value)}: ${scan}`);
    }
  }
  expect(probed).toBeGreaterThan(50);
  expect(failures).toEqual([]);
});

/** The table of the entity a list's nodes are: the class behind the node's GraphQL object type. */
function tableOf(nodeName: string): string {
  const target = getMetadataStorage().objectTypes.find((type) => type.name === nodeName)?.target;
  return (target && service.orm.getMetadata().find(target as never)?.tableName) ?? nodeName;
}
