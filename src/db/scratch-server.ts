import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { openEmbeddedCluster } from './embedded-postgres.js';

/** A PostgreSQL server to create throwaway databases on (tests, benchmarks, migration drafts). */
export interface ScratchServer {
  /** URL without a database name. */
  serverUrl: string;
  /** The embedded postmaster's pid, when the server is embedded (for CPU accounting). */
  postgresPid?: number;
  release(): Promise<void>;
}

function withoutDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = '';
  return url.toString().replace(/\/$/, '');
}

/** DATABASE_URL's server when given; else a throwaway embedded cluster in a temp dir, removed on release. */
/**
 * `statementStats`: an embedded cluster preloads pg_stat_statements (benchmarks count SQL statements with it).
 * `durable: false` (test runs): no fsync, no full-page writes. What a killed process committed still survives
 * (it is in the operating system's cache); only a machine crash could lose it, and the cluster dies with the run.
 */
export async function openScratchServer(
  databaseUrl: string | undefined,
  logger: Logger,
  label = 'scratch',
  { statementStats = false, durable = true } = {},
): Promise<ScratchServer> {
  if (databaseUrl) return { serverUrl: withoutDatabase(databaseUrl), release: async () => {} };
  const dataDir = await mkdtemp(path.join(tmpdir(), `credential-service-${label}-`));
  await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
  try {
    // Planning time too: statements with inlined values are planned on every execution.
    const extraFlags = [
      ...(statementStats ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track_planning=on'] : []),
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
    ];
    const cluster = await openEmbeddedCluster(dataDir, logger, { extraFlags });
    const pidFile = await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
    return {
      serverUrl: cluster.serverUrl,
      postgresPid: Number(pidFile.split('\n')[0]) || undefined,
      async release() {
        await cluster.stop();
        // The postmaster may still be removing its own files for a moment after it has stopped.
        await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs one statement on the server's maintenance database (create/drop database). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
