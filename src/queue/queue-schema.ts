import { runMigrations } from 'graphile-worker';
import { queueLogger } from './queue-logger.js';

/** The schema graphile-worker keeps its jobs in; the app role is granted its rows like `public`'s. */
export const QUEUE_SCHEMA = 'graphile_worker';

/**
 * Installs or upgrades the job queue's own schema (graphile-worker runs its own migrations), as the
 * owner role, as part of the service's migration step: the app role then never changes the schema.
 */
export async function installQueueSchema(ownerDatabaseUrl: string): Promise<void> {
  await runMigrations({ connectionString: ownerDatabaseUrl, schema: QUEUE_SCHEMA, logger: queueLogger() });
}
