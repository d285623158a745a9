import { createLogger } from '../../src/logger.js';
import { migrate, openOrm } from '../../src/db/orm.js';
import { adminQuery, openScratchServer } from '../../src/db/scratch-server.js';

export { adminQuery };

/** The server URL (no database) the tests create their databases on. */
export const SERVER_URL_VARIABLE = 'TEST_PG_SERVER_URL';
export const TEMPLATE_VARIABLE = 'TEST_PG_TEMPLATE';

export interface TestCluster {
  serverUrl: string;
  template: string;
  stop(): Promise<void>;
}

/** DATABASE_URL's server when given, else a throwaway embedded cluster; plus a migrated template. */
export async function startTestCluster(databaseUrl: string | undefined): Promise<TestCluster> {
  const server = await openScratchServer(databaseUrl, createLogger('warn'), 'test');
  const template = `cs_template_${process.pid}_${Date.now()}`;
  await adminQuery(server.serverUrl, `create database ${template}`);
  const orm = await openOrm(`${server.serverUrl}/${template}`);
  await migrate(orm);
  await orm.close();
  return {
    serverUrl: server.serverUrl,
    template,
    async stop() {
      await adminQuery(server.serverUrl, `drop database if exists ${template}`).catch(() => undefined);
      await server.release();
    },
  };
}
