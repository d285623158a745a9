import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { adoptObjects, ensureServiceRoles, type RoleCredentials, type ServiceRoles } from './database-roles.js';
import { ensureDatabase, openEmbeddedCluster } from './embedded-postgres.js';

export const EMBEDDED_DATABASE_NAME = 'credentials';

export interface DatabaseTarget {
  /** The service's sessions: the app role, rows only. */
  url: string;
  /** Migrations: the owner role (DATABASE_MIGRATION_URL; the same as `url` when unset). */
  migrationUrl: string;
  /** PostgreSQL itself, never a transaction pooler: LISTEN, the job queue, session locks (DATABASE_DIRECT_URL; else `url`). */
  directUrl: string;
  /** Where it came from, for logs: 'DATABASE_URL' or the embedded data directory. */
  source: string;
  /** Stops the embedded cluster when this process started it; a no-op otherwise. */
  release(): Promise<void>;
  /** Set when the embedded cluster is kept: resolves when it came back on another port (this process cannot follow it there). */
  moved?: Promise<number>;
  /** Set when the embedded cluster is kept: resolves when it could not be started again (EMBEDDED_DB_RESTART_ATTEMPTS failures in a row). */
  gaveUp?: Promise<number>;
}

/** `serverUrl` (no database) as `role`, on `database`. */
export function roleUrl(serverUrl: string, role: RoleCredentials, database: string): string {
  const url = new URL(serverUrl);
  url.username = role.user;
  url.password = role.password;
  url.pathname = `/${database}`;
  return url.toString();
}

/** The embedded cluster's owner and app roles, generated once into DATA_DIR (0600) like its superuser's. */
async function embeddedRoles(dataDir: string): Promise<ServiceRoles> {
  const file = path.join(dataDir, 'postgres-roles.json');
  const secret = () => randomBytes(24).toString('base64url');
  const fresh: ServiceRoles = { owner: { user: 'credentials_owner', password: secret() }, app: { user: 'credentials_app', password: secret() } };
  // `wx`: of several processes starting at once, one writes the file and every one reads it.
  await fs.writeFile(file, JSON.stringify(fresh), { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return JSON.parse(await fs.readFile(file, 'utf8')) as ServiceRoles;
}

/**
 * DATABASE_URL (and DATABASE_MIGRATION_URL) when set; otherwise the embedded PostgreSQL in DATA_DIR
 * (started or reused; with `keep`, started again whenever it stops), where the bootstrap superuser creates the owner and app roles and the
 * database owned by the owner, and is not used by the service after that.
 */
export async function resolveDatabase(config: Config, logger: Logger, options: { initialise?: boolean; keep?: boolean } = {}): Promise<DatabaseTarget> {
  if (config.databaseUrl) {
    const directUrl = config.pooler?.directUrl ?? config.databaseUrl;
    return { url: config.databaseUrl, migrationUrl: config.databaseMigrationUrl ?? directUrl, directUrl, source: 'DATABASE_URL', release: async () => {} };
  }
  const cluster = await openEmbeddedCluster(config.dataDir, logger, { ...options, restartAttempts: config.embeddedDbRestartAttempts });
  try {
    const roles = await embeddedRoles(config.dataDir);
    await ensureServiceRoles(`${cluster.serverUrl}/postgres`, roles);
    await ensureDatabase(cluster.serverUrl, EMBEDDED_DATABASE_NAME, roles.owner.user);
    await adoptObjects(`${cluster.serverUrl}/${EMBEDDED_DATABASE_NAME}`, EMBEDDED_DATABASE_NAME, roles.owner.user);
    const url = roleUrl(cluster.serverUrl, roles.app, EMBEDDED_DATABASE_NAME);
    return {
      url,
      directUrl: url,
      migrationUrl: roleUrl(cluster.serverUrl, roles.owner, EMBEDDED_DATABASE_NAME),
      source: `embedded PostgreSQL in ${config.dataDir}`,
      release: () => cluster.stop(),
      moved: cluster.moved,
      gaveUp: cluster.gaveUp,
    };
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}
