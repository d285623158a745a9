import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, until } from './support/wait.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'follower-'));
  await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const kek = randomBytes(32).toString('base64');

/** The built server on the embedded PostgreSQL in the shared DATA_DIR. */
async function startServer() {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    KEY_ENCRYPTION_KEY: kek,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  const child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = { child, output: '', url: `http://127.0.0.1:${port}`, exited: new Promise<number | null>((resolve) => child.on('exit', resolve)) };
  child.stdout.on('data', (chunk) => (server.output += chunk));
  child.stderr.on('data', (chunk) => (server.output += chunk));
  await until(async () => (await fetch(`${server.url}/readyz`).catch(() => undefined))?.status === 200, `readiness\n${server.output}`, 90_000);
  return server;
}

describe('a second server sharing the embedded PostgreSQL of DATA_DIR', () => {
  it('goes unready and exits cleanly when the server that started the cluster stops it', async () => {
    const owner = await startServer();
    const follower = await startServer();
    expect(follower.output).toContain('reusing the embedded PostgreSQL already running on this data directory');

    const seen = new Set<number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const response = await fetch(`${follower.url}/readyz`).catch(() => undefined);
        if (response) seen.add(response.status);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    owner.child.kill('SIGTERM');
    expect(await owner.exited).toBe(0);
    expect(await follower.exited).toBe(0);
    watching = false;
    await watch;

    expect(seen.has(503)).toBe(true);
    expect(follower.output).toContain('the embedded PostgreSQL this server shared with another process has stopped: shutting down');
    expect(follower.output).toContain('stopped cleanly');
  }, 180_000);
});
