/**
 * Issue 34: cost as the data grows. Two databases on one PostgreSQL server, each behind its own
 * service: 10,000 students (BENCH_GROWTH_SMALL) and 1,000,000 (BENCH_GROWTH_STUDENTS), each student
 * with two enrollments and one issued certificate, over 50 tenants (bench/growth-seed.ts). Every case
 * runs against both, alternated, and is reported side by side with the ratio; the plans of the
 * statements each case runs are captured (EXPLAIN ANALYZE) and what grows with the tenant is flagged.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../src/logger.js';
import { openEmbeddedCluster } from '../src/db/embedded-postgres.js';
import { openScratchServer, type ScratchServer } from '../src/db/scratch-server.js';
import { explainStatements, type StatementPlan } from './growth-plans.js';
import { seededAlready, seedGrowth, type GrowthSeed } from './growth-seed.js';
import { measureIssuance, seedIssuances } from './issuance.js';
import { measure, openBenchEnv, type BenchEnv, type Row, type Target } from './support.js';

const SMALL = Number(process.env.BENCH_GROWTH_SMALL || 10_000);
const LARGE = Number(process.env.BENCH_GROWTH_STUDENTS || 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 1);
const ISSUANCE_PAIRS = Math.min(600, Math.ceil(40 * (SECONDS + WARMUP_SECONDS) * 1.5));
const PER_PAGE = 50;
const TARGET_RATIO = 1.5;
/** Seed once, measure many times: the cluster lives in this directory and its two databases are kept. */
const KEPT_DIR = process.env.BENCH_GROWTH_DATA_DIR;

interface Side {
  label: string;
  env: BenchEnv;
  seed: GrowthSeed;
  facts: Facts;
}

/** What the cases name: found in the bench tenant of each database. */
interface Facts {
  courseUuid: string;
  email: string;
  certificateUuid: string;
  enrollments: number;
  /** The endCursor after 999 pages of 50 enrollments (walked through GraphQL). */
  cursorOfPage1000: string;
}

interface Case {
  name: string;
  target(side: Side): Target;
}

const rest = (side: Side, route: string): Target => ({ url: `${side.env.url}/api/v1${route}`, headers: side.env.auth });
const graphql = (side: Side, query: string, variables: Record<string, unknown> = {}): Target => ({
  url: `${side.env.url}/graphql`,
  method: 'POST',
  headers: { ...side.env.auth, 'content-type': 'application/json' },
  body: JSON.stringify({ query, variables }),
});

const PAGE_FIELDS = 'totalCount pageInfo { endCursor hasNextPage } nodes { uuid completionStatus grade createdAt }';
const INCLUDES = 'includes[student]=1&includes[course]=1&includes[cohort]=1';

const CASES: Case[] = [
  { name: 'enrollments, first page (GraphQL first: 50)', target: (s) => graphql(s, `{ enrollments(first: ${PER_PAGE}) { ${PAGE_FIELDS} } }`) },
  {
    name: 'enrollments, 1,000th page (GraphQL after: cursor; 10k: its last)',
    target: (s) =>
      graphql(s, `query($after: String) { enrollments(first: ${PER_PAGE}, after: $after) { ${PAGE_FIELDS} } }`, { after: s.facts.cursorOfPage1000 }),
  },
  { name: 'enrollments, first page, REST', target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}`) },
  { name: 'enrollments page with student, course, cohort (REST includes)', target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}&${INCLUDES}`) },
  {
    name: 'enrollments of a course sorted by created_at desc',
    target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}&where[course_uuid]=${s.facts.courseUuid}&sort[column]=created_at&sort[order]=desc`),
  },
  { name: 'enrollments where[completion_status]=completed', target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}&where[completion_status]=completed`) },
  { name: 'enrollments sorted by created_at', target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}&sort[column]=created_at`) },
  { name: 'students sorted by name', target: (s) => rest(s, `/students?per_page=${PER_PAGE}&sort[column]=name`) },
  {
    name: 'enrollments, last page (REST page=N)',
    target: (s) => rest(s, `/enrollments?per_page=${PER_PAGE}&page=${Math.ceil(s.facts.enrollments / PER_PAGE)}`),
  },
  { name: 'enrollments, GraphQL last: 50', target: (s) => graphql(s, `{ enrollments(last: ${PER_PAGE}) { ${PAGE_FIELDS} } }`) },
  { name: 'student by email', target: (s) => rest(s, `/students?where[email]=${encodeURIComponent(s.facts.email)}`) },
  {
    name: 'certificate with student, course, institution',
    target: (s) => rest(s, `/certificates/${s.facts.certificateUuid}?includes[student]=1&includes[course]=1&includes[institution]=1`),
  },
  { name: 'public verification page /verify/{uuid}', target: (s) => ({ url: `${s.env.url}/verify/${s.facts.certificateUuid}` }) },
];

async function postJson(target: Target): Promise<any> {
  const response = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
  const text = await response.text();
  if (!response.ok) throw new Error(`${target.method ?? 'GET'} ${target.url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text.startsWith('{') ? JSON.parse(text) : text;
}

async function findFacts(env: BenchEnv, seed: GrowthSeed): Promise<Facts> {
  const big = seed.tenants[0]!;
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    const one = async (sql: string) => (await client.query<{ value: string }>(sql, [env.tenant.uuid])).rows[0]!.value;
    const courseUuid = await one(`select uuid as value from courses where tenant_uuid = $1 order by uuid limit 1`);
    const certificateUuid = await one(
      `select uuid as value from certificates where tenant_uuid = $1 order by uuid offset ${Math.floor(big.students / 2)} limit 1`,
    );
    const enrollments = Number(await one(`select count(*) as value from enrollments where tenant_uuid = $1 and deleted_at is null`));
    // The cursor after 999 pages of 50 (walked in pages of 100); a list shorter than that: its last full page.
    const skip = Math.min(999 * PER_PAGE, enrollments - PER_PAGE);
    let after: string | null = null;
    for (let walked = 0; walked < skip;) {
      const size = Math.min(100, skip - walked);
      const answer = await postJson(
        graphql({ env } as Side, `query($after: String) { enrollments(first: ${size}, after: $after) { pageInfo { endCursor } } }`, { after }),
      );
      after = answer.data.enrollments.pageInfo.endCursor as string;
      walked += size;
    }
    return { courseUuid, certificateUuid, enrollments, email: `student${Math.floor(big.students / 2)}@${big.identifier}.test`, cursorOfPage1000: after! };
  } finally {
    await client.end();
  }
}

async function sizes(databaseUrl: string): Promise<{ database: number; certificates: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ database: string; certificates: string }>(
      `select pg_database_size(current_database()) as database, pg_total_relation_size('certificates') as certificates`,
    );
    return { database: Number(rows[0]!.database), certificates: Number(rows[0]!.certificates) };
  } finally {
    await client.end();
  }
}

/** The embedded cluster in BENCH_GROWTH_DATA_DIR (made when missing), left in place on release. */
async function keptServer(dataDir: string): Promise<ScratchServer> {
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o755);
  const cluster = await openEmbeddedCluster(dataDir, createLogger('silent'));
  const pid = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]) || undefined;
  return { serverUrl: cluster.serverUrl, postgresPid: pid, release: () => cluster.stop() };
}

async function openSide(label: string, students: number, server: ScratchServer): Promise<Side> {
  const env = await openBenchEnv({ server, ...(KEPT_DIR ? { keptDatabase: `growth_${students}` } : {}) });
  try {
    const kept = KEPT_DIR ? await seededAlready(env.databaseUrl, env.tenant, students) : undefined;
    const seed = kept ?? (await seedGrowth(env.databaseUrl, env.tenant, students));
    const big = seed.tenants[0]!;
    console.log(
      `${label}: ${kept ? 'kept from an earlier run' : `seeded in ${seed.seconds.toFixed(0)} s`}: ${seed.students.toLocaleString('en')} students, ${seed.enrollments.toLocaleString('en')} enrollments, ${seed.certificates.toLocaleString('en')} issued certificates over ${seed.tenants.length} tenants; measured tenant "${big.identifier}": ${big.students.toLocaleString('en')} students, ${(2 * big.students).toLocaleString('en')} enrollments, ${big.courses} courses; 49 others ${seed.tenants[1]!.students.toLocaleString('en')} students each`,
    );
    return { label, env, seed, facts: await findFacts(env, seed) };
  } catch (error) {
    await env.stop();
    throw error;
  }
}

interface Measured {
  name: string;
  rows: [Row, Row];
  plans: [StatementPlan[], StatementPlan[]];
}

async function capturePlans(side: Side, target: Target): Promise<StatementPlan[]> {
  const { statements, values } = await side.env.withStatements(() => postJson(target));
  return explainStatements(side.env.databaseUrl, statements, values);
}

const cpuUs = (row: Row) => row.serverUs + (row.postgresUs ?? 0);
const latency = (row: Row) => `${Math.round(row.p50)}/${Math.round(row.p99)}`;

function printComparison(sides: [Side, Side], measured: Measured[]): void {
  const [small, large] = sides;
  console.log(`\ngrowth: ${small.label} vs ${large.label} (same server, alternated; CPU = service main thread + PostgreSQL, per request)`);
  console.table(
    measured.map(({ name, rows: [a, b], plans }) => ({
      case: name,
      [`${small.label} p50/p99 ms`]: latency(a),
      [`${small.label} req/s`]: Math.round(a.rps),
      [`${small.label} CPU µs`]: Math.round(cpuUs(a)),
      [`${large.label} p50/p99 ms`]: latency(b),
      [`${large.label} req/s`]: Math.round(b.rps),
      [`${large.label} CPU µs`]: Math.round(cpuUs(b)),
      'x req/s': (a.rps / b.rps).toFixed(2),
      'x CPU': (cpuUs(b) / cpuUs(a)).toFixed(2),
      [`${large.label} plan flags`]: plans[1].flatMap((plan) => plan.flags).join('; ') || '-',
    })),
  );
  for (const { name, rows } of measured) {
    const ratio = cpuUs(rows[1]) / cpuUs(rows[0]);
    if (ratio > TARGET_RATIO) console.log(`MISSED: ${name}: ${ratio.toFixed(2)}x the CPU per request (target <= ${TARGET_RATIO}x)`);
  }
}

async function writePlans(sides: [Side, Side], measured: Measured[]): Promise<string> {
  const file = process.env.BENCH_GROWTH_PLANS || path.join(tmpdir(), `growth-plans-${process.pid}.txt`);
  const text = measured
    .map(({ name, plans }) =>
      sides.map((side, index) => `## ${name} — ${side.label}\n` + plans[index]!.map(({ sql, plan }) => `${sql}\n\n${plan}\n`).join('\n')).join('\n'),
    )
    .join('\n\n');
  await writeFile(file, text);
  return file;
}

export async function runGrowthBench(): Promise<void> {
  const server = KEPT_DIR ? await keptServer(KEPT_DIR) : await openScratchServer(process.env.DATABASE_URL, createLogger('silent'), 'growth');
  const opened: Side[] = [];
  try {
    opened.push(await openSide(`${SMALL / 1000}k`, SMALL, server));
    opened.push(await openSide(LARGE >= 1_000_000 ? `${LARGE / 1_000_000}M` : `${LARGE / 1000}k`, LARGE, server));
    const sides = opened as [Side, Side];
    const measured: Measured[] = [];
    for (const item of CASES) {
      const plans = (await Promise.all(sides.map((side) => capturePlans(side, item.target(side))))) as Measured['plans'];
      const rows: Row[] = [];
      for (const side of sides) rows.push(await measure(side.env, `${item.name} (${side.label})`, item.target(side)));
      measured.push({ name: item.name, rows: rows as [Row, Row], plans });
    }
    const issuance: Row[] = [];
    for (const side of sides) {
      const { bodies } = await seedIssuances(side.env, ISSUANCE_PAIRS, undefined, `growth-graduate-${Date.now()}-`);
      issuance.push(await measureIssuance(side.env, bodies, `issuance (${side.label})`));
    }
    measured.push({ name: 'issuance POST /certificates finish: true, 8 clients', rows: issuance as [Row, Row], plans: [[], []] });
    printComparison(sides, measured);
    const bad = measured.filter(({ rows }) => rows.some((row) => row.non2xx > 0 || row.errors > 0));
    for (const { name, rows } of bad) console.error(`ERROR: ${name}: ${rows.map((row) => `${row.non2xx} non-2xx, ${row.errors} errors`).join(' / ')}`);
    console.log(`plans (EXPLAIN ANALYZE of every statement each case ran): ${await writePlans(sides, measured)}`);
    for (const side of sides) {
      const size = await sizes(side.env.databaseUrl);
      const perMillion = (bytes: number) => ((bytes / 1024 / 1024) * 1_000_000) / side.seed.certificates;
      console.log(
        `${side.label}: database ${(size.database / 1024 / 1024).toFixed(0)} MB (${perMillion(size.database).toFixed(0)} MB per million certificates, with their students and enrollments; no files), certificates table with indexes ${(size.certificates / 1024 / 1024).toFixed(0)} MB (${perMillion(size.certificates).toFixed(0)} MB per million)`,
      );
    }
    if (bad.length > 0) throw new Error(`${bad.length} growth case(s) had failed requests`);
  } finally {
    for (const side of opened) await side.env.stop();
    await server.release();
  }
}
