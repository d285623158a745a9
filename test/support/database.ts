import { randomBytes } from 'node:crypto';
import { adminQuery, SERVER_URL_VARIABLE, TEMPLATE_VARIABLE } from './cluster.js';

export interface TestDatabase {
  url: string;
  serverUrl: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env[SERVER_URL_VARIABLE];
  const template = process.env[TEMPLATE_VARIABLE];
  if (!serverUrl || !template) throw new Error('test cluster not started: run the tests through `npm test`');
  const name = `cs_test_${randomBytes(6).toString('hex')}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(serverUrl, `create database ${name} template ${template}`);
      break;
    } catch (error) {
      // Two files cloning the template at the same moment: "source database is being accessed".
      if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  return {
    url: `${serverUrl}/${name}`,
    serverUrl,
    drop: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
