/**
 * A build of this service (or a peer) as a process of its own on a loopback port, for the benches
 * that compare separate processes (peers.ts, issuance-base.ts): started, awaited, stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LIMITS_OFF, tokenRequest } from './support.js';

export const TENANT = 'bench';

export interface Server {
  name: string;
  child: ChildProcess;
  url: string;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export const newCredentials = (): Credentials => ({ clientId: `bench-${randomBytes(4).toString('hex')}`, clientSecret: randomBytes(24).toString('base64url') });

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(url: string, child: ChildProcess, init?: RequestInit, seconds = 120): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: its process exited with ${child.exitCode}`);
    const ok = await fetch(url, init).then(
      (response) => response.status < 500,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

export function startProcess(name: string, args: string[], options: { cwd: string; env: Record<string, string> }): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return child;
}

/** `node dist/src/main.js` of the build in `cwd` on `databaseUrl`, seeding the bench tenant and a client with `credentials`. */
export async function startServiceProcess(databaseUrl: string, credentials: Credentials, name = 'service', cwd = process.cwd()): Promise<Server> {
  const port = await freePort();
  const child = startProcess(name, ['dist/src/main.js'], {
    cwd,
    env: {
      ...LIMITS_OFF,
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'http://bench.invalid',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // Background pollers would count as statements of the measured requests.
      JOB_WORKER: 'off',
      IDEMPOTENCY_SWEEP_MS: '0',
      LOG_LEVEL: process.env.BENCH_SERVICE_LOG_LEVEL || 'warn',
      DATABASE_URL: databaseUrl,
      DB_POOL_MAX: '10',
      PORT: String(port),
      HOST: '127.0.0.1',
      NOTIFICATION_WORKER: 'off',
      DATA_DIR: await mkdtemp(path.join(tmpdir(), 'bench-service-data-')),
      SEED_TENANT: TENANT,
      SEED_CLIENT_ID: credentials.clientId,
      SEED_CLIENT_SECRET: credentials.clientSecret,
      // PDF_* knobs (worker count, limits) pass through, the same for every build.
      ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('PDF_') && entry[1] !== undefined)),
      ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, child);
  return { name, child, url };
}

export async function stopProcess(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function fetchToken(url: string, credentials: Credentials): Promise<string> {
  const response = await fetch(`${url}/api/v1/oauth/token`, { method: 'POST', ...tokenRequest(credentials) });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The headers of an authenticated call to `server` as the bench tenant. */
export async function authHeaders(server: Server, credentials: Credentials): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await fetchToken(server.url, credentials)}`, 'x-tenant': TENANT, accept: 'application/json' };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
