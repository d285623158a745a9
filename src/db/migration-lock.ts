import pg from 'pg';

// One key for the whole service: every process that may migrate this database takes the same lock.
const MIGRATION_LOCK_KEY = "hashtext('credential-service:migrations')";

/**
 * Runs `work` (migrations) while holding a PostgreSQL session advisory lock on a connection of its
 * own, so N processes started together on a new database migrate one after the other: the first
 * applies everything, the others find nothing pending. The lock goes with the connection, so a
 * process that dies mid-way frees it.
 */
export async function withMigrationLock<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    try {
      return await work();
    } finally {
      await client.query(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    }
  } finally {
    await client.end();
  }
}
