import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requestToken } from './support/service.js';
import { freePort, until } from './support/wait.js';

let dataDir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'follower-'));
  await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
});
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
  // A postmaster orphaned by the hard kill below, or started again after the last server stopped.
  const pid = await postmasterPid();
  if (pid) process.kill(pid, 'SIGINT');
  await until(async () => (await postmasterPid()) === undefined, 'the postmaster to stop', 30_000);
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

const kek = randomBytes(32).toString('base64');
const seed = { tenant: 'acme', clientId: 'follower-test', clientSecret: randomBytes(24).toString('base64url') };

interface Server {
  child: ReturnType<typeof spawn>;
  output: string;
  url: string;
  exited: Promise<number | null>;
}

async function postmasterPid(): Promise<number | undefined> {
  const pid = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  return pid > 0 ? pid : undefined;
}

/** The built server on the embedded PostgreSQL in the shared DATA_DIR. */
async function startServer(): Promise<Server> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    KEY_ENCRYPTION_KEY: kek,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_API_PER_MINUTE: '0',
    SEED_TENANT: seed.tenant,
    SEED_CLIENT_ID: seed.clientId,
    SEED_CLIENT_SECRET: seed.clientSecret,
  };
  const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server: Server = { child, output: '', url: `http://127.0.0.1:${port}`, exited: new Promise((resolve) => child.on('exit', resolve)) };
  child.stdout!.on('data', (chunk) => (server.output += chunk));
  child.stderr!.on('data', (chunk) => (server.output += chunk));
  servers.push(server);
  await until(async () => (await fetch(`${server.url}/readyz`).catch(() => undefined))?.status === 200, `readiness\n${server.output}`, 90_000);
  return server;
}

interface Attempt {
  status: number;
  retryAfter: string | null;
  uuid?: string;
}

/** Creates students through `server`, one after another, until stopped; what each attempt was answered. */
async function keepWriting(server: Server) {
  const token = ((await (await requestToken(server.url, seed)).json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, 'x-tenant': seed.tenant, 'content-type': 'application/json', accept: 'application/json' };
  const attempts: Attempt[] = [];
  let writing = true;
  const done = (async () => {
    for (let index = 0; writing; index++) {
      const body = JSON.stringify({ name: `Student ${index}`, email: `student-${index}-${Date.now()}@example.org`, date_of_birth: '2001-02-03' });
      const response = await fetch(`${server.url}/api/v1/students`, { method: 'POST', headers, body });
      const answer = (await response.json()) as { data?: { uuid: string } };
      attempts.push({ status: response.status, retryAfter: response.headers.get('retry-after'), uuid: answer.data?.uuid });
      if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  /** Once writes were refused with 503 and then succeeded again, stops and checks every acknowledged write is there. */
  const recovered = async () => {
    await until(() => attempts.some((attempt) => attempt.status === 503) && attempts.at(-1)?.status === 201, `503s and then a write again`, 60_000);
    writing = false;
    await done;
    const stored = await Promise.all(
      attempts.filter((attempt) => attempt.uuid).map(async (attempt) => (await fetch(`${server.url}/api/v1/students/${attempt.uuid}`, { headers })).status),
    );
    return { attempts, stored };
  };
  return { recovered };
}

function expectOnly503sWithRetryAfterThenRecovery({ attempts, stored }: { attempts: Attempt[]; stored: number[] }) {
  expect(new Set(attempts.map((attempt) => attempt.status))).toEqual(new Set([201, 503]));
  expect(attempts.filter((attempt) => attempt.status === 503).every((attempt) => attempt.retryAfter === '2')).toBe(true);
  // Every write acknowledged with 201, before, during or after the outage, is there.
  expect(stored.length).toBe(attempts.filter((attempt) => attempt.status === 201).length);
  expect(stored.every((status) => status === 200)).toBe(true);
}

describe('servers sharing the embedded PostgreSQL of DATA_DIR', () => {
  let follower: Server;

  it('keep serving when the server that started the cluster stops it: 503 with Retry-After meanwhile, then one starts it again, no write lost', async () => {
    const owner = await startServer();
    follower = await startServer();
    expect(follower.output).toContain('reusing the embedded PostgreSQL already running on this data directory');

    const writes = await keepWriting(follower);
    owner.child.kill('SIGTERM');
    expect(await owner.exited).toBe(0);
    expectOnly503sWithRetryAfterThenRecovery(await writes.recovered());

    expect(follower.child.exitCode).toBeNull();
    expect(follower.output).toContain('the embedded PostgreSQL this server uses has stopped');
    expect(follower.output).toContain('embedded PostgreSQL started again by this server');
    const ready = await fetch(`${follower.url}/readyz`);
    expect(ready.status).toBe(200);
  }, 180_000);

  it('keep serving when a cluster left behind by a hard kill stops under a server that only reused it', async () => {
    // The follower above now runs the cluster; killed hard, it leaves it running, and a new server reuses it.
    follower.child.kill('SIGKILL');
    await follower.exited;
    const reuser = await startServer();
    expect(reuser.output).toContain('reusing the embedded PostgreSQL already running on this data directory');

    const writes = await keepWriting(reuser);
    process.kill((await postmasterPid())!, 'SIGINT'); // as an operator or a crash would stop it
    expectOnly503sWithRetryAfterThenRecovery(await writes.recovered());
    expect(reuser.child.exitCode).toBeNull();
    expect(reuser.output).toContain('embedded PostgreSQL started again by this server');
  }, 180_000);
});
