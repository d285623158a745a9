/**
 * Issue 14's issuance target, "twice today's rate": `POST /api/v1/certificates` with `finish: true` at
 * BENCH_ISSUANCE_CLIENTS (8) clients against this build and another one (BENCH_BASE_DIR, e.g. `git
 * archive 91a29cd` built there), each `node dist/src/main.js` of its own on its own database of one
 * PostgreSQL, loaded alternately for BENCH_ROUNDS rounds. Per build and round: issuances/s, p50/p99,
 * CPU ms per issuance of the whole server process (event loop and document workers) and of
 * PostgreSQL, and SQL statements per issuance as PostgreSQL counted them (pg_stat_statements:
 * authentication and transaction control included).
 */
import path from 'node:path';
import pg from 'pg';
import { adminQuery, openScratchServer } from '../src/db/scratch-server.js';
import { createLogger } from '../src/logger.js';
import { postgresCpuMs, processCpuMs, threadCpuMs } from './cpu.js';
import { fireIssuances, issueOne, percentile, seedIssuances, type IssuanceTarget } from './issuance.js';
import { authHeaders, median, newCredentials, startServiceProcess, stopProcess, type Server } from './service-process.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 1);
// Students, enrollments and uploads enough for 80 issuances/s through every round's warm-up and measurement.
const PAIRS = Math.min(5000, Math.ceil(ROUNDS * (SECONDS + WARMUP_SECONDS) * 80 * 1.3));

interface Build extends IssuanceTarget {
  name: string;
  server: Server;
  database: string;
  stats: pg.Client;
  bodies: string[];
  next: number;
}

interface Measured {
  build: string;
  round: number;
  rate: number;
  issued: number;
  failed: number;
  p50: number;
  p99: number;
  serverMs: number;
  /** Of serverMs: the event loop's thread, the worker threads (documents), V8's and libuv's helper threads. */
  mainMs: number;
  workersMs: number;
  helpersMs: number;
  postgresMs?: number;
  statements: number;
}

async function statementsSoFar(stats: pg.Client): Promise<number> {
  const { rows } = await stats.query<{ calls: string }>(
    `select coalesce(sum(calls), 0) as calls from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'`,
  );
  return Number(rows[0]!.calls);
}

/** Its own database, its process, PAIRS issuable drafts' bodies and its institution's signing key made. */
async function openBuild(serverUrl: string, name: string, cwd: string): Promise<Build> {
  const database = `cs_issuance_${name}_${process.pid}`;
  await adminQuery(serverUrl, `create database ${database}`);
  const databaseUrl = `${serverUrl}/${database}`;
  const credentials = newCredentials();
  const server = await startServiceProcess(databaseUrl, credentials, name, cwd);
  const auth = await authHeaders(server, credentials);
  const stats = new pg.Client({ connectionString: databaseUrl });
  await stats.connect();
  await stats.query('create extension if not exists pg_stat_statements');
  const { bodies } = await seedIssuances({ url: server.url, auth }, PAIRS + 1);
  await issueOne({ url: server.url, auth }, bodies[0]!);
  // Statistics as autovacuum keeps them on a live database: just seeded, the planner takes tables
  // of thousands of rows for empty ones and may scan a tenant's index instead of the primary key.
  await stats.query('analyze');
  return { name, server, database, stats, url: server.url, auth, bodies, next: 1 };
}

async function measureOnce(build: Build, round: number, postgresPid: number | undefined): Promise<Measured> {
  if (WARMUP_SECONDS > 0) build.next += (await fireIssuances(build, build.bodies.slice(build.next), WARMUP_SECONDS)).used;
  const pid = build.server.child.pid!;
  const sample = async () => ({
    server: await processCpuMs(pid),
    threads: await threadCpuMs(pid),
    postgres: postgresPid ? await postgresCpuMs(postgresPid) : undefined,
    statements: await statementsSoFar(build.stats),
  });
  const before = await sample();
  const left = build.bodies.slice(build.next);
  const load = await fireIssuances(build, left, SECONDS);
  const after = await sample();
  build.next += load.used;
  if (load.used === left.length) console.warn(`WARNING: ${build.name} used every prepared draft before ${SECONDS} s`);
  if (load.sample) console.warn(`WARNING: ${build.name}: first failure: ${load.sample}`);
  const issued = load.statuses.filter((status) => status === 201).length;
  const requests = load.statuses.length || 1;
  const sorted = [...load.latencies].sort((a, b) => a - b);
  const threadMs = (name: string) => Math.max(0, (after.threads.get(name) ?? 0) - (before.threads.get(name) ?? 0)) / requests;
  const serverMs = (after.server! - before.server!) / requests;
  const mainMs = threadMs('MainThread');
  // V8's helpers (GC, compiler), libuv's pool and the like: every live thread but the event loop and the workers.
  const helpersMs = [...after.threads.keys()].filter((name) => name !== 'MainThread' && name !== 'WorkerThread').reduce((sum, name) => sum + threadMs(name), 0);
  return {
    build: build.name,
    round,
    rate: issued / load.seconds,
    issued,
    failed: load.statuses.length - issued,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    serverMs,
    mainMs,
    helpersMs,
    // A replaced worker's thread is gone from `after` but its time stays in the process's: the remainder is the workers'.
    workersMs: serverMs - mainMs - helpersMs,
    postgresMs: before.postgres === undefined || after.postgres === undefined ? undefined : (after.postgres - before.postgres) / requests,
    // The statements count's own query is excluded; the other build's statements are in its own database.
    statements: (after.statements - before.statements) / requests,
  };
}

/** BENCH_SQL=1: where PostgreSQL's time went for one build, by statement (pg_stat_statements, whole run, planning included). */
async function printCostliestStatements(build: Build): Promise<void> {
  const { rows } = await build.stats.query<{ calls: string; plan_ms: number; exec_ms: number; total_ms: number; query: string }>(
    `select calls, round((total_plan_time / calls)::numeric, 3)::float as plan_ms, round((total_exec_time / calls)::numeric, 3)::float as exec_ms,
            round((total_plan_time + total_exec_time)::numeric)::float as total_ms,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
       from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
      order by total_plan_time + total_exec_time desc limit 20`,
  );
  console.log(`\n${build.name}: PostgreSQL's costliest statements (planning and execution per call, whole run: seeding included)`);
  console.table(rows);
}

const fixed = (value: number | undefined, digits = 1) => (value === undefined ? '-' : Number(value.toFixed(digits)));

function print(rows: Measured[], reference: string): void {
  const base = rows.find((row) => row.build === reference);
  console.table(
    rows.map((row) => ({
      build: row.build,
      'issuances/s': fixed(row.rate),
      issued: row.issued,
      failed: row.failed,
      'p50 ms': fixed(row.p50, 0),
      'p99 ms': fixed(row.p99, 0),
      'server CPU ms/issuance': fixed(row.serverMs),
      'of it event loop': fixed(row.mainMs),
      'document workers': fixed(row.workersMs),
      'GC and helpers': fixed(row.helpersMs),
      'PG CPU ms/issuance': fixed(row.postgresMs),
      'SQL/issuance': fixed(row.statements, 2),
      [`x ${reference}`]: base ? fixed(row.rate / base.rate, 2) : '-',
    })),
  );
}

export async function runIssuanceBaseBench(baseDir: string): Promise<Measured[]> {
  const server = await openScratchServer(process.env.DATABASE_URL, createLogger('silent'), 'bench', { statementStats: true });
  const builds: Build[] = [];
  try {
    const started = performance.now();
    const opened = await Promise.allSettled([openBuild(server.serverUrl, 'this', process.cwd()), openBuild(server.serverUrl, 'base', path.resolve(baseDir))]);
    for (const result of opened) if (result.status === 'fulfilled') builds.push(result.value);
    for (const result of opened) if (result.status === 'rejected') throw result.reason;
    console.log(`seeded ${PAIRS} drafts' worth of students, enrollments and uploads per build in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    console.log(`${SECONDS} s per build and round after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds, base: ${baseDir}`);
    const all: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate the order, so neither build always runs right after the other's load.
      const ordered = round % 2 ? builds : [...builds].reverse();
      const rows: Measured[] = [];
      for (const build of ordered) rows.push(await measureOnce(build, round, server.postgresPid));
      rows.sort((a, b) => a.build.localeCompare(b.build));
      console.log(`\nround ${round}`);
      print(rows, 'base');
      all.push(...rows);
    }
    console.log(`\nmedian of ${ROUNDS} rounds (x base: ratio of the medians; per round above)`);
    const mid = (rows: Measured[], pick: (row: Measured) => number | undefined) => {
      const values = rows.map(pick).filter((value) => value !== undefined);
      return values.length ? median(values) : undefined;
    };
    print(
      builds.map(({ name }) => {
        const rows = all.filter((row) => row.build === name);
        return {
          build: name,
          round: 0,
          rate: mid(rows, (row) => row.rate)!,
          issued: rows.reduce((sum, row) => sum + row.issued, 0),
          failed: rows.reduce((sum, row) => sum + row.failed, 0),
          p50: mid(rows, (row) => row.p50)!,
          p99: mid(rows, (row) => row.p99)!,
          serverMs: mid(rows, (row) => row.serverMs)!,
          mainMs: mid(rows, (row) => row.mainMs)!,
          workersMs: mid(rows, (row) => row.workersMs)!,
          helpersMs: mid(rows, (row) => row.helpersMs)!,
          postgresMs: mid(rows, (row) => row.postgresMs),
          statements: mid(rows, (row) => row.statements)!,
        };
      }),
      'base',
    );
    if (process.env.BENCH_SQL) for (const build of builds) await printCostliestStatements(build);
    return all;
  } finally {
    for (const build of builds) {
      await build.stats.end().catch(() => undefined);
      await stopProcess(build.server);
      await adminQuery(server.serverUrl, `drop database if exists ${build.database} with (force)`).catch(() => undefined);
    }
    await server.release();
  }
}
