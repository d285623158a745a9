import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/logger.js';
import { roleUrl } from '../../src/db/database.js';
import { ensureServiceRoles, grantAppRole, type ServiceRoles } from '../../src/db/database-roles.js';
import { migrate, openOrm } from '../../src/db/orm.js';
import { adminQuery, openScratchServer } from '../../src/db/scratch-server.js';

export { adminQuery };

/** The server URL (no database) the tests create their databases on, as an administrator. */
export const SERVER_URL_VARIABLE = 'TEST_PG_SERVER_URL';
export const TEMPLATE_VARIABLE = 'TEST_PG_TEMPLATE';
/** The run's owner and app roles (JSON of ServiceRoles), as the service uses them. */
export const ROLES_VARIABLE = 'TEST_PG_ROLES';

export interface TestCluster {
  serverUrl: string;
  template: string;
  roles: ServiceRoles;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL's server when given, else a throwaway embedded cluster; plus this run's owner and app
 * roles (neither a superuser) and a template migrated by the owner, as the service itself migrates.
 */
export async function startTestCluster(databaseUrl: string | undefined): Promise<TestCluster> {
  const server = await openScratchServer(databaseUrl, createLogger('warn'), 'test', { durable: false });
  const run = `${process.pid}_${Date.now()}`;
  const secret = () => randomBytes(18).toString('base64url');
  const roles: ServiceRoles = { owner: { user: `cs_owner_${run}`, password: secret() }, app: { user: `cs_app_${run}`, password: secret() } };
  await ensureServiceRoles(`${server.serverUrl}/postgres`, roles);
  const template = `cs_template_${run}`;
  await adminQuery(server.serverUrl, `create database ${template} owner ${roles.owner.user}`);
  const ownerUrl = roleUrl(server.serverUrl, roles.owner, template);
  const orm = await openOrm(ownerUrl);
  await migrate(orm);
  await orm.close();
  await grantAppRole(ownerUrl, roles.app.user);
  return {
    serverUrl: server.serverUrl,
    template,
    roles,
    async stop() {
      await adminQuery(server.serverUrl, `drop database if exists ${template}`).catch(() => undefined);
      await adminQuery(server.serverUrl, `drop role if exists ${roles.app.user}, ${roles.owner.user}`).catch(() => undefined);
      await server.release();
    },
  };
}
