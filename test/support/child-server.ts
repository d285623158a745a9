import { spawn } from 'node:child_process';
import { ApiClient, requestToken } from './service.js';
import { freePort, until } from './wait.js';

const SEED = { SEED_TENANT: 'acme', SEED_CLIENT_ID: 'child-client', SEED_CLIENT_SECRET: 'child-secret-0123456789abcdef' };

export interface ChildServer {
  /** A client of tenant acme, seeded at the child's start. */
  api: ApiClient;
  /** SIGKILL: the process dies mid-work, as in a crash; resolves once it exited. */
  killHard(): Promise<void>;
}

/** A server in its own process (`dist/src/main.js`) on the database at `databaseUrl`; ready when returned. */
export async function startChildServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const port = await freePort();
  const childEnv = { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ...SEED, ...env };
  const child = spawn(process.execPath, ['dist/src/main.js'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const killHard = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // A whole process start (module load, migrations check, seeding): on a loaded 2-core machine it took
    // over 30 s; 90 s as the other files that start the built server wait for it.
    await until(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, 'the child to be ready', 90_000);
    const token = await requestToken(baseUrl, { clientId: SEED.SEED_CLIENT_ID, clientSecret: SEED.SEED_CLIENT_SECRET });
    const { access_token } = (await token.json()) as { access_token: string };
    return { api: new ApiClient(baseUrl, access_token, 'acme'), killHard };
  } catch (error) {
    await killHard();
    throw new Error(`${(error as Error).message}; its output:\n${output}`);
  }
}
