import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { jest } from '@jest/globals';
import { freePort, until } from './support/wait.js';

jest.setTimeout(60_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('the server process (npm start)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'credential-service-shutdown-'));
    await chmod(dataDir, 0o755);
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const seed = { SEED_TENANT: 'acme', SEED_CLIENT_ID: 'shutdown-client', SEED_CLIENT_SECRET: 'shutdown-secret-0123456789' };

  /** The built server as `npm start` runs it, in production mode, in its own process group. */
  async function startServer() {
    const port = await freePort();
    // As deployed: production mode, and (as systemd's control-group kill and `timeout` do) the signal goes
    // to the whole process group, so the embedded PostgreSQL receives it at the same moment.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'http://credentials.test',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'info',
      ...seed,
    };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const server = { child, port, output: '', base: `http://127.0.0.1:${port}`, exit: exited(child), postgresPid: 0 };
    child.stdout!.on('data', (chunk) => (server.output += chunk));
    child.stderr!.on('data', (chunk) => (server.output += chunk));
    await until(async () => (await fetch(`${server.base}/readyz`).catch(() => undefined))?.status === 200, 'readiness');
    server.postgresPid = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(alive(server.postgresPid)).toBe(true);
    return server;
  }

  it('idle, on SIGTERM to its process group stops its embedded PostgreSQL and exits 0', async () => {
    const server = await startServer();
    process.kill(-server.child.pid!, 'SIGTERM');
    expect(await server.exit).toBe(0);
    expect(server.output).toContain('stopped cleanly');
    expect(alive(server.postgresPid)).toBe(false);
  });

  it('on SIGTERM to its process group finishes the request in flight, then stops its embedded PostgreSQL and exits 0', async () => {
    const server = await startServer();
    const { child, port, base, exit, postgresPid } = server;

    const tokenResponse = await fetch(`${base}/api/v1/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: seed.SEED_CLIENT_ID, client_secret: seed.SEED_CLIENT_SECRET }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

    // A GraphQL request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ query: '{ viewer { clientId } }' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nX-Tenant: acme\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-child.pid!, 'SIGTERM');
    await until(() => server.output.includes('shutting down'), 'the shutdown to begin');
    const refused = await fetch(`${base}/healthz`).then(
      () => 'accepted',
      () => 'refused',
    );
    socket.write(body.slice(5));
    await closed;

    expect(reply).toMatch(/^HTTP\/1.1 200/);
    expect(reply).toContain('"clientId":"shutdown-client"');
    expect(refused).toBe('refused');
    expect(await exit).toBe(0);
    expect(server.output).toContain('stopped cleanly');
    expect(alive(postgresPid)).toBe(false);
  });
});
