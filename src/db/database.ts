import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { ensureDatabase, openEmbeddedCluster } from './embedded-postgres.js';

export const EMBEDDED_DATABASE_NAME = 'credentials';

export interface DatabaseTarget {
  url: string;
  /** Where it came from, for logs: 'DATABASE_URL' or the embedded data directory. */
  source: string;
  /** Stops the embedded cluster when this process started it; a no-op otherwise. */
  release(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL in DATA_DIR (started or reused). */
export async function resolveDatabase(config: Config, logger: Logger): Promise<DatabaseTarget> {
  if (config.databaseUrl) return { url: config.databaseUrl, source: 'DATABASE_URL', release: async () => {} };
  const cluster = await openEmbeddedCluster(config.dataDir, logger);
  await ensureDatabase(cluster.serverUrl, EMBEDDED_DATABASE_NAME);
  return {
    url: `${cluster.serverUrl}/${EMBEDDED_DATABASE_NAME}`,
    source: `embedded PostgreSQL in ${config.dataDir}`,
    release: () => cluster.stop(),
  };
}
