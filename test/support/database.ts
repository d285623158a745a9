import { randomBytes } from 'node:crypto';
import { roleUrl } from '../../src/db/database.js';
import type { ServiceRoles } from '../../src/db/database-roles.js';
import { adminQuery, ROLES_VARIABLE, SERVER_URL_VARIABLE, TEMPLATE_VARIABLE } from './cluster.js';

export interface TestDatabase {
  /** As the service connects: the app role (rows only). */
  url: string;
  /** As migrations run: the owner role. */
  ownerUrl: string;
  /** The server without a database, as an administrator. */
  serverUrl: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the run's template. */
export function createTestDatabase(): Promise<TestDatabase> {
  return createDatabase(true);
}

/** A new database with nothing in it, owned by the owner role: what a first deployment starts on. */
export function createEmptyDatabase(): Promise<TestDatabase> {
  return createDatabase(false);
}

async function createDatabase(migrated: boolean): Promise<TestDatabase> {
  const serverUrl = process.env[SERVER_URL_VARIABLE];
  const template = process.env[TEMPLATE_VARIABLE];
  const roles = process.env[ROLES_VARIABLE];
  if (!serverUrl || !template || !roles) throw new Error('test cluster not started: run the tests through `npm test`');
  const { owner, app } = JSON.parse(roles) as ServiceRoles;
  const name = `cs_test_${randomBytes(6).toString('hex')}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(serverUrl, `create database ${name} template ${migrated ? template : 'template0'} owner ${owner.user}`);
      break;
    } catch (error) {
      // Two files cloning the template at the same moment: "source database is being accessed".
      if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  return {
    url: roleUrl(serverUrl, app, name),
    ownerUrl: roleUrl(serverUrl, owner, name),
    serverUrl,
    drop: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
