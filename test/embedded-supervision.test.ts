import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { freePort, until } from './support/wait.js';

jest.setTimeout(180_000);

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The built server as `npm start` runs it, in its own process. */
async function startServer(env: Record<string, string>): Promise<Started> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      PATH: process.env.PATH,
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: port,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => ((output += chunk), (stderr += chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, stderr: () => stderr, exited };
}

/** Waits for /readyz 200; a server that died or hung shows its output. */
async function ready(server: Started): Promise<void> {
  await until(async () => (await readyz(server.url)) === 200 || server.child.exitCode !== null, 'the service to be ready', 90_000).catch(() => undefined);
  if ((await readyz(server.url)) !== 200) throw new Error(`the service did not become ready; its output:\n${server.output()}`);
}

const readyz = async (url: string) => (await fetch(`${url}/readyz`).catch(() => undefined))?.status;

/** The embedded cluster's postmaster: its pid and port, from postmaster.pid. */
async function postmaster(dataDir: string): Promise<{ pid: number; port: number }> {
  const lines = (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** Binds `port` as soon as it is free (a killed postmaster frees it within milliseconds). */
async function occupy(port: number): Promise<net.Server> {
  for (;;) {
    const server = net.createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return server;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const messages = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the embedded PostgreSQL, supervised', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'supervised-'));
    await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('killed with kill -9 while the service runs: /readyz answers 503, the service starts it again and is ready again', async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      await ready(server);
      const before = await postmaster(dataDir);
      process.kill(before.pid, 'SIGKILL');
      const seen: Array<number | undefined> = [];
      await until(
        async () => {
          seen.push(await readyz(server.url));
          return seen.includes(503) && seen.at(-1) === 200;
        },
        'the database to be down, then back',
        60_000,
      );
      const after = await postmaster(dataDir);
      expect(after.pid).not.toBe(before.pid);
      expect(after.port).toBe(before.port);
      const logged = messages(server.output()).map((line) => line.msg);
      expect(logged).toEqual(
        expect.arrayContaining([
          'the embedded PostgreSQL this server uses has stopped: answering 503 until it is back, and starting it again',
          'embedded PostgreSQL started again by this server',
        ]),
      );
      expect(server.child.exitCode).toBeNull();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      if (code !== 0) throw new Error(`exit code ${code}; output:\n${server.output()}`);
    } catch (error) {
      // SIGTERM: the service stops the cluster it started.
      server.child.kill('SIGTERM');
      await server.exited;
      throw error;
    }
  });

  it('when it cannot be started again, tries EMBEDDED_DB_RESTART_ATTEMPTS times with a growing pause, then exits 1', async () => {
    const server = await startServer({ DATA_DIR: dataDir, EMBEDDED_DB_RESTART_ATTEMPTS: '3' });
    try {
      await ready(server);
      const { pid } = await postmaster(dataDir);
      process.kill(pid, 'SIGKILL');
      // The data directory stops being a cluster: every start fails.
      await rename(path.join(dataDir, 'postgres', 'PG_VERSION'), path.join(dataDir, 'postgres', 'PG_VERSION.away'));
      // Backends of the killed postmaster may answer a moment longer; then /readyz says 503 until the process gives up.
      const seen: Array<number | undefined> = [];
      await until(async () => (seen.push(await readyz(server.url)), server.child.exitCode !== null), 'the service to give up', 120_000);
      expect(seen).toContain(503);
      expect(await server.exited).toBe(1);
      const logged = messages(server.output());
      const failures = logged.filter((line) => String(line.msg).startsWith('starting the embedded PostgreSQL again failed'));
      expect(failures.map((line) => [line.attempt, line.retryInMs])).toEqual([
        [1, 500],
        [2, 1000],
      ]);
      expect(logged.map((line) => String(line.msg))).toContainEqual(
        expect.stringMatching(/^the embedded PostgreSQL could not be started again \(.+\) 3 times in a row: giving up$/),
      );
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });
});

describe('a start that cannot succeed', () => {
  let database: TestDatabase;
  beforeAll(async () => (database = await createTestDatabase()));
  afterAll(() => database.drop());

  /** One line on stderr, exit code 1, no stack trace. */
  async function refusedWith(env: Record<string, string>): Promise<string> {
    const server = await startServer(env);
    expect(await server.exited).toBe(1);
    const lines = server.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(server.output()).not.toMatch(/\n\s+at /);
    return lines[0]!;
  }

  it('with the database unreachable says so and what to do', async () => {
    const closed = await freePort();
    expect(await refusedWith({ DATABASE_URL: `postgres://app:secret@127.0.0.1:${closed}/credentials` })).toBe(
      `Cannot start: cannot reach the database at 127.0.0.1:${closed} (ECONNREFUSED): start PostgreSQL there, or correct DATABASE_URL`,
    );
  });

  // PostgreSQL refuses to run as root, so as root the embedded cluster runs as "postgres"; a DATA_DIR
  // under a directory only root may enter (what `mktemp -d` makes) was a stack trace from initdb.
  (process.getuid?.() === 0 ? it : it.skip)('with a DATA_DIR the cluster user cannot reach (as root) says so and what to do', async () => {
    const privateDir = await mkdtemp(path.join(tmpdir(), 'private-'));
    try {
      await chmod(privateDir, 0o700);
      expect(await refusedWith({ DATA_DIR: path.join(privateDir, 'data') })).toBe(
        `Cannot start: PostgreSQL may not run as root, so the embedded one runs as the user "postgres", which cannot reach ${path.join(privateDir, 'data', 'postgres')}: set DATA_DIR to a directory every parent of which that user may enter (e.g. chmod o+x on them), or run as another user`,
      );
    } finally {
      await rm(privateDir, { recursive: true, force: true });
    }
  });

  it('with its port in use says so and what to do', async () => {
    const port = await freePort();
    const squatter = await occupy(port);
    try {
      expect(await refusedWith({ DATABASE_URL: database.url, DATABASE_MIGRATION_URL: database.ownerUrl, PORT: String(port) })).toBe(
        `Cannot start: port ${port} on 127.0.0.1 is already in use by another program: stop it, or set PORT (and HOST) to a free one`,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
