/**
 * Issue 14: the list page of bench/lists.ts against its peers, each a separate process: this service
 * (`node dist/src/main.js`, NODE_ENV=production) in REST and GraphQL, PostGraphile 5 and the
 * one-statement baseline from ../shared/peers when installed there, all on one seeded database. The
 * load generator (wrk, else the autocannon CLI; BENCH_LOADGEN) is a process of its own too. Targets are
 * alternated for BENCH_ROUNDS rounds; each row gives req/s, p50/p99, SQL statements per request
 * (pg_stat_statements) and CPU µs per request of the target's process and of PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { adminQuery, openScratchServer } from '../src/db/scratch-server.js';
import { createLogger } from '../src/logger.js';
import { postgresCpuMs, processCpuMs } from './cpu.js';
import { ENROLLMENTS, seedCatalogue } from './seed.js';
import {
  fetchToken,
  freePort,
  median,
  newCredentials,
  startProcess,
  startServiceProcess,
  stopProcess,
  TENANT,
  waitFor,
  type Server,
} from './service-process.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const PEERS_DIR = path.resolve(process.env.BENCH_PEERS_DIR || '../shared/peers');

const REST_PATH = '/api/v1/enrollments?per_page=50&includes[student]=1&includes[course]=1&includes[cohort]=1';
const SERVICE_QUERY = `{ enrollments(first: 50) { totalCount nodes { uuid completionStatus grade enrolledAt completedAt createdAt updatedAt
  student { uuid name email dateOfBirth gender socialName createdAt updatedAt }
  course { uuid name code description workload isActive createdAt updatedAt }
  cohort { uuid code modality startDate endDate createdAt updatedAt } } } }`;
// One record with two relations. The seeded database has enrollments, not certificates: an enrollment
// with its student and course has the shape of the "certificate with student and course".
const ONE_REST_PATH = (uuid: string) => `/api/v1/enrollments/${uuid}?includes[student]=1&includes[course]=1`;
const ONE_SERVICE_QUERY = (uuid: string) => `{ enrollment(uuid: "${uuid}") { uuid completionStatus grade enrolledAt completedAt createdAt updatedAt
  student { uuid name email dateOfBirth gender socialName createdAt updatedAt }
  course { uuid name code description workload isActive createdAt updatedAt } } }`;
const ONE_POSTGRAPHILE_QUERY = (uuid: string) => `{ enrollmentByUuid(uuid: "${uuid}") { uuid completionStatus grade enrolledAt completedAt createdAt updatedAt
  studentByStudentUuid { uuid name email dateOfBirth gender socialName createdAt updatedAt }
  courseByCourseUuid { uuid name code description workload isActive createdAt updatedAt } } }`;
const POSTGRAPHILE_QUERY = (tenantUuid: string) =>
  `{ allEnrollments(first: 50, orderBy: PRIMARY_KEY_ASC, condition: {tenantUuid: "${tenantUuid}", deletedAt: null}) { totalCount nodes { uuid completionStatus grade enrolledAt completedAt createdAt updatedAt
  studentByStudentUuid { uuid name email dateOfBirth gender socialName createdAt updatedAt }
  courseByCourseUuid { uuid name code description workload isActive createdAt updatedAt }
  cohortByCohortUuid { uuid code modality startDate endDate createdAt updatedAt } } } }`;

interface Target {
  name: string;
  /** The list page, or one record with two relations (issue 14's single-resource GET). */
  kind: 'list' | 'one';
  process: Server;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The page's uuids and total from a response body. */
  page(body: any): { uuids: string[]; total: unknown };
}

interface Measured {
  target: string;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failed: number;
  statements?: number;
  nodeUs?: number;
  postgresUs?: number;
}

async function startPeer(folder: string, script: string, env: Record<string, string>): Promise<Server | undefined> {
  const cwd = path.join(PEERS_DIR, folder);
  if (!existsSync(path.join(cwd, 'node_modules'))) {
    console.log(`(${folder} skipped: not installed in ${cwd}; see ${PEERS_DIR}/README.md)`);
    return undefined;
  }
  const port = await freePort();
  const child = startProcess(folder, [script], { cwd, env: { ...env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' } });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    folder === 'raw' ? url : `${url}/graphql`,
    child,
    folder === 'raw' ? undefined : { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' },
  );
  return { name: folder, child, url };
}

/** One request per target before timing: every one must return the same 50 uuids and the same total. */
async function checkSamePage(targets: Target[]): Promise<void> {
  const pages = await Promise.all(
    targets.map(async (target) => {
      const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
      const body = await response.json();
      return { name: target.name, status: response.status, ...target.page(body) };
    }),
  );
  for (const kind of ['list', 'one'] as const) {
    const ofKind = pages.filter((_page, index) => targets[index]!.kind === kind);
    const expected = ofKind[0]?.uuids.join();
    for (const page of ofKind) {
      const complete = kind === 'list' ? page.uuids.length === 50 && Number(page.total) === ENROLLMENTS : page.uuids.length === 1;
      const same = complete && page.uuids.join() === expected;
      console.log(
        `${kind} check ${page.name}: HTTP ${page.status}, ${page.uuids.length} rows, total ${String(page.total)}, same uuids: ${same ? 'yes' : 'NO'}`,
      );
    }
  }
}

// --- load generators: separate processes -------------------------------------------------------

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const duration = (text: string) => {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
};

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err}`))));
  });
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failed: number;
}

const loadgen = (): 'wrk' | 'autocannon' => {
  const chosen = process.env.BENCH_LOADGEN;
  if (chosen === 'wrk' || chosen === 'autocannon') return chosen;
  return existsSync('/usr/bin/wrk') ? 'wrk' : 'autocannon';
};

async function wrk(target: Target, seconds: number, scriptDir: string): Promise<Load> {
  const script = path.join(scriptDir, `${target.name.replace(/\W+/g, '_')}.lua`);
  const lua = [
    `wrk.method = ${JSON.stringify(target.method)}`,
    ...Object.entries(target.headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    target.body === undefined ? '' : `wrk.body = ${JSON.stringify(target.body)}`,
  ].join('\n');
  await writeFile(script, lua);
  const out = await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '--latency', '-s', script, target.url]);
  const percentile = (p: string) => duration(new RegExp(`^\\s*${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '');
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors:.*?timeout (\d+)/.exec(out)?.[1] ?? 0);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p50: percentile('50'), p99: percentile('99'), requests, failed };
}

async function autocannon(target: Target, seconds: number): Promise<Load> {
  const args = ['node_modules/autocannon/autocannon.js', '-c', String(CONNECTIONS), '-d', String(seconds), '-j', '-m', target.method];
  for (const [name, value] of Object.entries(target.headers)) args.push('-H', `${name}=${value}`);
  if (target.body !== undefined) args.push('-b', target.body);
  const result = JSON.parse(await run(process.execPath, [...args, target.url])) as any;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

// --- statements and CPU ------------------------------------------------------------------------

async function statementsSoFar(client: pg.Client | undefined): Promise<number | undefined> {
  if (!client) return undefined;
  const { rows } = await client.query<{ calls: string }>(
    `select coalesce(sum(calls), 0) as calls from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'`,
  );
  return Number(rows[0]!.calls);
}

async function measureOnce(target: Target, round: number, stats: pg.Client | undefined, postgresPid: number | undefined, scriptDir: string): Promise<Measured> {
  const generate = (seconds: number) => (loadgen() === 'wrk' ? wrk(target, seconds, scriptDir) : autocannon(target, seconds));
  if (WARMUP_SECONDS > 0) await generate(WARMUP_SECONDS);
  const pid = target.process.child.pid!;
  const before = { node: await processCpuMs(pid), postgres: postgresPid ? await postgresCpuMs(postgresPid) : undefined, sql: await statementsSoFar(stats) };
  const load = await generate(SECONDS);
  const after = { node: await processCpuMs(pid), postgres: postgresPid ? await postgresCpuMs(postgresPid) : undefined, sql: await statementsSoFar(stats) };
  const per = (a: number | undefined, b: number | undefined, scale: number) =>
    a === undefined || b === undefined || load.requests === 0 ? undefined : ((b - a) * scale) / load.requests;
  return {
    target: target.name,
    round,
    ...load,
    nodeUs: per(before.node, after.node, 1000),
    postgresUs: per(before.postgres, after.postgres, 1000),
    statements: per(before.sql, after.sql, 1),
  };
}

const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '-' : Number(value.toFixed(digits)));

function printRound(rows: Measured[], reference: string): void {
  const base = rows.find((row) => row.target === reference);
  console.table(
    rows.map((row) => ({
      target: row.target,
      'req/s': fixed(row.rps),
      'p50 ms': fixed(row.p50, 1),
      'p99 ms': fixed(row.p99, 1),
      failed: row.failed,
      'SQL/req': fixed(row.statements, 2),
      'node CPU µs/req': fixed(row.nodeUs),
      'PG CPU µs/req': fixed(row.postgresUs),
      [`x ${reference}`]: base ? Number((row.rps / base.rps).toFixed(2)) : '-',
    })),
  );
}

/** The single-record GET of each list target's server: the first enrollment of the tenant, with student and course. */
async function singleRecordTargets(databaseUrl: string, tenantUuid: string, lists: Target[]): Promise<Target[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const uuid = (await db.query<{ uuid: string }>('select uuid from enrollments where tenant_uuid = $1 order by uuid limit 1', [tenantUuid])).rows[0]!.uuid;
  await db.end();
  const one = (data: { uuid?: string } | undefined) => ({ uuids: data?.uuid ? [data.uuid] : [], total: '-' });
  return lists.flatMap((list): Target[] => {
    const origin = list.process.url;
    if (list.name.endsWith('REST'))
      return [{ ...list, name: `${list.name} one`, kind: 'one', url: `${origin}${ONE_REST_PATH(uuid)}`, page: (body) => one(body.data) }];
    if (list.name.endsWith('GraphQL'))
      return [
        {
          ...list,
          name: `${list.name} one`,
          kind: 'one',
          body: JSON.stringify({ query: ONE_SERVICE_QUERY(uuid) }),
          page: (body) => one(body.data?.enrollment),
        },
      ];
    if (list.name === 'PostGraphile 5')
      return [
        {
          ...list,
          name: 'PostGraphile 5 one',
          kind: 'one',
          body: JSON.stringify({ query: ONE_POSTGRAPHILE_QUERY(uuid) }),
          page: (body) => one(body.data?.enrollmentByUuid),
        },
      ];
    return [];
  });
}

export async function runPeersBench(): Promise<Measured[]> {
  const logger = createLogger('silent');
  const server = await openScratchServer(process.env.DATABASE_URL, logger, 'bench', { statementStats: true });
  const database = `cs_peers_${process.pid}_${Date.now()}`;
  await adminQuery(server.serverUrl, `create database ${database}`);
  const databaseUrl = `${server.serverUrl}/${database}`;
  const scriptDir = await mkdtemp(path.join(tmpdir(), 'bench-peers-'));
  const servers: Server[] = [];
  let stats: pg.Client | undefined;
  try {
    const credentials = newCredentials();
    const service = await startServiceProcess(databaseUrl, credentials);
    servers.push(service);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const tenantUuid = (await db.query<{ uuid: string }>('select uuid from tenants where identifier = $1', [TENANT])).rows[0]!.uuid;
    await db.end();
    const seeded = await seedCatalogue(databaseUrl, tenantUuid);
    console.log(`seeded ${ENROLLMENTS} enrollments, ${seeded.courses} courses, ${seeded.cohorts} cohorts in ${seeded.seconds.toFixed(1)} s`);
    // BENCH_BASE_DIR: another build of this service (e.g. `git archive main` built there) as extra targets.
    const base = process.env.BENCH_BASE_DIR ? await startServiceProcess(databaseUrl, credentials, 'base', path.resolve(process.env.BENCH_BASE_DIR)) : undefined;
    if (base) servers.push(base);
    const postgraphile = await startPeer('postgraphile5', 'server.mjs', { DATABASE_URL: databaseUrl, POOL_SIZE: '10' });
    const raw = await startPeer('raw', 'server.cjs', { DATABASE_URL: databaseUrl, TENANT_UUID: tenantUuid, POOL_SIZE: '10' });
    servers.push(...[postgraphile, raw].filter((peer) => peer !== undefined));

    const token = await fetchToken(service.url, credentials);
    const auth = { authorization: `Bearer ${token}`, 'x-tenant': TENANT, accept: 'application/json' };
    const json = { 'content-type': 'application/json' };
    const uuids = (nodes: { uuid: string }[] | undefined) => (nodes ?? []).map((node) => node.uuid);
    const targets: Target[] = [
      {
        name: 'service REST',
        kind: 'list',
        process: service,
        url: `${service.url}${REST_PATH}`,
        method: 'GET',
        headers: auth,
        page: (body) => ({ uuids: uuids(body.data), total: body.meta?.total }),
      },
      {
        name: 'service GraphQL',
        kind: 'list',
        process: service,
        url: `${service.url}/graphql`,
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify({ query: SERVICE_QUERY }),
        page: (body) => ({ uuids: uuids(body.data?.enrollments?.nodes), total: body.data?.enrollments?.totalCount }),
      },
    ];
    if (base) {
      const baseToken = await fetchToken(base.url, credentials);
      const baseAuth = { ...auth, authorization: `Bearer ${baseToken}` };
      targets.push(
        { ...targets[0]!, name: 'base REST', process: base, url: `${base.url}${REST_PATH}`, headers: baseAuth },
        { ...targets[1]!, name: 'base GraphQL', process: base, url: `${base.url}/graphql`, headers: { ...baseAuth, ...json } },
      );
    }
    if (postgraphile) {
      targets.push({
        name: 'PostGraphile 5',
        kind: 'list',
        process: postgraphile,
        url: `${postgraphile.url}/graphql`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ query: POSTGRAPHILE_QUERY(tenantUuid) }),
        page: (body) => ({ uuids: uuids(body.data?.allEnrollments?.nodes), total: body.data?.allEnrollments?.totalCount }),
      });
    }
    if (raw) {
      targets.push({
        name: 'one SQL statement (raw)',
        kind: 'list',
        process: raw,
        url: `${raw.url}/`,
        method: 'GET',
        headers: {},
        page: (body) => ({ uuids: uuids(body.data?.enrollments?.nodes), total: body.data?.enrollments?.totalCount }),
      });
    }
    targets.push(...(await singleRecordTargets(databaseUrl, tenantUuid, targets)));
    await checkSamePage(targets);

    stats = new pg.Client({ connectionString: databaseUrl });
    await stats.connect();
    const statsReady = await stats.query('create extension if not exists pg_stat_statements').then(
      () => statementsSoFar(stats).then(() => true),
      () => false,
    );
    if (!statsReady) {
      console.log('(pg_stat_statements not loaded on this server: SQL/request not measured)');
      await stats.end();
      stats = undefined;
    }

    const reference = (kind: Target['kind']) =>
      postgraphile ? `PostGraphile 5${kind === 'one' ? ' one' : ''}` : `service REST${kind === 'one' ? ' one' : ''}`;
    const print = (rows: Measured[]) => {
      for (const kind of ['list', 'one'] as const)
        printRound(
          rows.filter((row) => targets.find((t) => t.name === row.target)!.kind === kind),
          reference(kind),
        );
    };
    console.log(`\n${loadgen()}, ${CONNECTIONS} connections, ${SECONDS} s per target after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds`);
    const all: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const rows: Measured[] = [];
      // Alternate the order too, so no target always follows the same neighbour.
      const ordered = round % 2 ? targets : [...targets].reverse();
      for (const target of ordered) rows.push(await measureOnce(target, round, stats, server.postgresPid, scriptDir));
      rows.sort((a, b) => targets.findIndex((t) => t.name === a.target) - targets.findIndex((t) => t.name === b.target));
      console.log(`\nround ${round}`);
      print(rows);
      all.push(...rows);
    }
    console.log(`\nmedian of ${ROUNDS} rounds`);
    print(
      targets.map((target) => {
        const rows = all.filter((row) => row.target === target.name);
        const mid = (pick: (row: Measured) => number | undefined) => {
          const values = rows.map(pick).filter((value) => value !== undefined);
          return values.length ? median(values) : undefined;
        };
        return {
          target: target.name,
          round: 0,
          rps: mid((row) => row.rps)!,
          p50: mid((row) => row.p50)!,
          p99: mid((row) => row.p99)!,
          requests: rows.reduce((sum, row) => sum + row.requests, 0),
          failed: rows.reduce((sum, row) => sum + row.failed, 0),
          statements: mid((row) => row.statements),
          nodeUs: mid((row) => row.nodeUs),
          postgresUs: mid((row) => row.postgresUs),
        };
      }),
    );
    return all;
  } finally {
    await stats?.end().catch(() => undefined);
    for (const running of servers.reverse()) await stopProcess(running);
    await rm(scriptDir, { recursive: true, force: true });
    await adminQuery(server.serverUrl, `drop database if exists ${database} with (force)`).catch(() => undefined);
    await server.release();
  }
}
