import type { ServiceRuntime } from '../src/context/request-context.js';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon, { type Result } from 'autocannon';
import type { Express } from 'express';
import { adminQuery, openScratchServer, type ScratchServer } from '../src/db/scratch-server.js';
import { ClientService } from '../src/auth/client.service.js';
import { loadConfig, type Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { createLogger, type Logger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { TenantService } from '../src/tenants/tenant.service.js';
import { cpuSample, perRequest } from './cpu.js';
import { profiled, shouldProfile } from './profile.js';

export const TENANT = 'bench';
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);

/** Benchmarks measure the work, not the throttles: every rate limit off. */
/** PDF_* knobs pass through, so the soak can be rerun with other worker settings. */
const documentWorkerSettings = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('PDF_')));

export const LIMITS_OFF = Object.fromEntries(
  [
    'TOKEN_RATE_LIMIT',
    'TOKEN_FAILURE_LIMIT',
    'TOKEN_ADDRESS_FAILURE_LIMIT',
    'TOKEN_CLIENT_LIMIT',
    'RATE_LIMIT_API_PER_MINUTE',
    'RATE_LIMIT_PUBLIC_PER_MINUTE',
    'RATE_LIMIT_VERIFY_PER_MINUTE',
  ].map((name) => [name, '0']),
);

export interface BenchEnv {
  url: string;
  databaseUrl: string;
  config: Config;
  orm: Orm;
  /** What the running service's request contexts carry. */
  runtime: ServiceRuntime;
  logger: Logger;
  tenant: { identifier: string; uuid: string };
  credentials: { clientId: string; clientSecret: string };
  token: string;
  /** The headers of an authenticated call. */
  auth: Record<string, string>;
  /** The embedded cluster's postmaster, whose CPU time the tables report; unknown for DATABASE_URL. */
  postgresPid?: number;
  /** `work`'s result and the SQL statements the service ran meanwhile. */
  withStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[]; values: (readonly unknown[] | undefined)[] }>;
  stop(): Promise<void>;
}

export interface Row {
  name: string;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU µs a request on this process's main thread (the servers) and in PostgreSQL. */
  serverUs: number;
  postgresUs?: number;
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export function settings(): string {
  return `${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections`;
}

async function fetchToken(url: string, credentials: BenchEnv['credentials']): Promise<string> {
  const response = await fetch(`${url}/api/v1/oauth/token`, { method: 'POST', ...tokenRequest(credentials) });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export function tokenRequest({ clientId, clientSecret }: BenchEnv['credentials']): { headers: Record<string, string>; body: string } {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString();
  return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
}

export interface BenchEnvOptions {
  /** `off` (the default): every rate limit off; `default`: the limits a deployment starts with. */
  limits?: 'off' | 'default';
  /** Further configuration variables. */
  env?: Record<string, string>;
  /** A server to create the database on, which stop() leaves running (bench/growth.ts: two databases, one server). */
  server?: ScratchServer;
  /** A database of that name, created when missing and kept by stop() (bench/growth.ts with BENCH_GROWTH_DATA_DIR). */
  keptDatabase?: string;
  /**
   * false: the database's commits do not wait for the disk to flush the WAL (`synchronous_commit = off`;
   * nothing committed is lost unless the machine itself crashes). For benches that compare two phases on
   * a shared disk, whose flushes stall every writer now and then whatever the load (bench/neighbours.ts).
   */
  commitsWaitForFlush?: boolean;
}

/** The real service on a fresh database, with one tenant, its client and a live token. */
export async function openBenchEnv(options: BenchEnvOptions = {}): Promise<BenchEnv> {
  const logger = createLogger('silent');
  const server = options.server ? { ...options.server, release: async () => {} } : await openScratchServer(process.env.DATABASE_URL, logger, 'bench');
  const database = options.keptDatabase ?? `cs_bench_${process.pid}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await adminQuery(server.serverUrl, `create database ${database}`).catch((error: { code?: string }) => {
    if (!options.keptDatabase || error.code !== '42P04') throw error; // 42P04: it exists
  });
  if (options.commitsWaitForFlush === false) await adminQuery(server.serverUrl, `alter database ${database} set synchronous_commit = off`);
  const databaseUrl = `${server.serverUrl}/${database}`;
  const dropAll = async () => {
    if (!options.keptDatabase) await adminQuery(server.serverUrl, `drop database if exists ${database} with (force)`).catch(() => undefined);
    await server.release();
  };
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'http://bench.invalid',
      // A kept database holds signing keys sealed by an earlier run: the same name, the same (bench-only) key.
      KEY_ENCRYPTION_KEY: options.keptDatabase ? createHash('sha256').update(`bench kept ${database}`).digest('base64') : randomBytes(32).toString('base64'),
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      NOTIFICATION_WORKER: 'off',
      ...(options.limits === 'default' ? {} : LIMITS_OFF),
      ...documentWorkerSettings(),
      ...options.env,
    });
    let captured: string[] | undefined;
    let capturedValues: (readonly unknown[] | undefined)[] = [];
    const service = await startService(config, logger, {
      onQuery: (sql, params) => {
        if (!captured) return;
        captured.push(sql);
        capturedValues.push(params);
      },
    });
    const em = service.orm.em.fork();
    const tenant = await new TenantService(em).ensure(TENANT);
    const credentials = await new ClientService(em).create(TENANT);
    const token = await fetchToken(service.url, credentials);
    return {
      url: service.url,
      databaseUrl,
      config,
      orm: service.orm,
      runtime: service.runtime,
      logger,
      tenant: { identifier: TENANT, uuid: tenant.uuid },
      postgresPid: server.postgresPid,
      credentials,
      token,
      auth: { authorization: `Bearer ${token}`, 'x-tenant': TENANT, accept: 'application/json' },
      async withStatements(work) {
        captured = [];
        capturedValues = [];
        try {
          const result = await work();
          return { result, statements: captured, values: capturedValues };
        } finally {
          captured = undefined;
        }
      },
      async stop() {
        await service.stop();
        await dropAll();
      },
    };
  } catch (error) {
    await dropAll();
    throw error;
  }
}

/** What a tenant's client calls with: the service's URL and the headers of an authenticated call. */
export type TenantAccess = Pick<BenchEnv, 'url' | 'auth'>;

/** Another tenant of the running service, with a client of its own and a live token. */
export async function addTenant(env: BenchEnv, identifier: string): Promise<TenantAccess> {
  const em = env.orm.em.fork();
  await new TenantService(em).ensure(identifier);
  const token = await fetchToken(env.url, await new ClientService(em).create(identifier));
  return { url: env.url, auth: { authorization: `Bearer ${token}`, 'x-tenant': identifier, accept: 'application/json' } };
}

/** An Express app of the bench itself on a loopback port; resolves with its base URL and a closer. */
export async function listenLocal(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The load generator runs on a worker thread: in the server's own event loop it would steal the
// very CPU time being measured.
function fire(target: Target, duration: number): Promise<Result> {
  return autocannon({ ...target, method: target.method ?? 'GET', connections: CONNECTIONS, duration, workers: 1, timeout: 30 });
}

/** Warm up, then load `target` for the configured duration (CPU-profiled when BENCH_PROFILE names it). */
export async function measure(env: BenchEnv, name: string, target: Target): Promise<Row> {
  if (WARMUP_SECONDS > 0) await fire(target, WARMUP_SECONDS);
  const run = () => fire(target, SECONDS);
  const before = await cpuSample(env.postgresPid);
  const result = shouldProfile(name) ? await profiled(name, run) : await run();
  const cpu = perRequest(before, await cpuSample(env.postgresPid), result.requests.total);
  return {
    ...cpu,
    name,
    rps: result.requests.average,
    mean: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** One table: each row's figures and its throughput as a multiple of the baseline row's. */
export function printTable(title: string, rows: Row[], baseline: Row): void {
  console.log(`\n${title} (latency percentiles have autocannon's 1 ms resolution)`);
  console.table(
    rows.map((row) => ({
      case: row.name,
      'req/s': Math.round(row.rps),
      'mean ms': Number(row.mean.toFixed(2)),
      'p50 ms': row.p50,
      'p99 ms': row.p99,
      'non-2xx': row.non2xx,
      errors: row.errors,
      'server CPU µs/req': Math.round(row.serverUs),
      'PG CPU µs/req': row.postgresUs === undefined ? '-' : Math.round(row.postgresUs),
      'x baseline': (row.rps / baseline.rps).toFixed(2),
    })),
  );
}

export function failed(rows: Row[]): Row[] {
  return rows.filter((row) => row.non2xx > 0 || row.errors > 0 || row.rps === 0);
}

/** POST a JSON body to a collection of the REST API as the bench tenant; the created record (201), else an error. */
export async function postCreated(env: BenchEnv, route: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${env.url}/api/v1${route}`, {
    method: 'POST',
    headers: { ...env.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${route} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: Record<string, any> }).data;
}
