import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';
import { migrate, openOrm } from '../../src/db/orm.js';

/** The server URL (no database) the tests create their databases on. */
export const SERVER_URL_VARIABLE = 'TEST_PG_SERVER_URL';
export const TEMPLATE_VARIABLE = 'TEST_PG_TEMPLATE';

export interface TestCluster {
  serverUrl: string;
  template: string;
  stop(): Promise<void>;
}

function serverUrlOf(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = '';
  return url.toString().replace(/\/$/, '');
}

export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** DATABASE_URL's server when given, else a throwaway embedded cluster; plus a migrated template. */
export async function startTestCluster(databaseUrl: string | undefined): Promise<TestCluster> {
  let embedded: EmbeddedCluster | undefined;
  let dataDir: string | undefined;
  let serverUrl: string;
  if (databaseUrl) {
    serverUrl = serverUrlOf(databaseUrl);
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'credential-service-test-'));
    await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
    embedded = await openEmbeddedCluster(dataDir, createLogger('warn'));
    serverUrl = embedded.serverUrl;
  }
  const template = `cs_template_${process.pid}_${Date.now()}`;
  await adminQuery(serverUrl, `create database ${template}`);
  const orm = await openOrm(`${serverUrl}/${template}`);
  await migrate(orm);
  await orm.close();
  return {
    serverUrl,
    template,
    async stop() {
      await adminQuery(serverUrl, `drop database if exists ${template}`).catch(() => undefined);
      await embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
