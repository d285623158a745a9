/**
 * Developer tool: `npm run migration:create -- <name>` diffs the entities against a scratch database
 * that has every committed migration applied, and writes the difference as a new migration file.
 */
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { ensureDatabase, openEmbeddedCluster } from './embedded-postgres.js';
import { migrate, openOrm } from './orm.js';
import pg from 'pg';

const name = process.argv[2] ?? 'change';
const config = loadConfig();
const logger = createLogger('warn');
const cluster = await openEmbeddedCluster(config.dataDir, logger);
const scratch = `migration_draft_${Date.now()}`;
await ensureDatabase(cluster.serverUrl, scratch);
const orm = await openOrm(`${cluster.serverUrl}/${scratch}`);
try {
  await migrate(orm);
  const result = await orm.migrator.create('src/db/migrations', false, false, name);
  console.log(result.fileName ? `written src/db/migrations/${result.fileName}: add it to src/db/migrations/index.ts` : 'no schema changes');
} finally {
  await orm.close();
  const admin = new pg.Client({ connectionString: `${cluster.serverUrl}/postgres` });
  await admin.connect();
  await admin.query(`drop database ${scratch}`);
  await admin.end();
  await cluster.stop();
}
