import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig, type OrmOptions } from '../../mikro-orm.config.js';
import type { Logger } from '../logger.js';
import type { DatabaseTarget } from './database.js';
import { grantAppRole, sessionRole } from './database-roles.js';
import { withMigrationLock } from './migration-lock.js';
import type { ServicePostgreSqlDriver } from './service-driver.js';
import { installQueueSchema } from '../queue/queue-schema.js';

export type Orm = MikroORM;

export async function openOrm(clientUrl: string, options: OrmOptions = {}): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(clientUrl, options));
  if (options.pooler === 'transaction') (orm.driver as unknown as ServicePostgreSqlDriver).namedStatements = false;
  return orm;
}

/**
 * Installs the job queue's schema, then applies every committed migration not yet applied, all in one
 * transaction; never synchronises the schema from entities. The service's session timeouts do not
 * apply: a migration may rewrite a large table.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  await installQueueSchema(orm.config.get('clientUrl')!);
  // Also creates the migrations table, outside the transaction below (which may hold the only connection).
  if ((await orm.migrator.getPending()).length === 0) return [];
  const connection = orm.em.getConnection();
  const applied = await connection.transactional(async (trx) => {
    await connection.execute('set local statement_timeout = 0', [], 'run', trx);
    await connection.execute('set local idle_in_transaction_session_timeout = 0', [], 'run', trx);
    return orm.migrator.up({ transaction: trx });
  });
  return applied.map((migration) => migration.name);
}

export async function pendingMigrationCount(orm: Orm): Promise<number> {
  return (await orm.migrator.getPending()).length;
}

/** Resolves once the database answers a query (the readiness probe's first question). */
export async function pingDatabase(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}

/** The connection pool's own counts (pg.Pool's). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export async function poolCounts(orm: Orm): Promise<PoolCounts> {
  return (await orm.em.getConnection().getNativeClient()) as unknown as PoolCounts;
}

/**
 * The service's ORM, connected as the app role, with migrations applied as the owner role first (and
 * the app role granted rows on every table). Warns when the app role is a superuser: DATABASE_URL
 * should name a role that cannot change the schema.
 */
export async function openServiceOrm(database: DatabaseTarget, logger: Logger, options: OrmOptions = {}): Promise<{ orm: Orm; applied: string[] }> {
  const role = await sessionRole(database.url);
  if (role.superuser)
    logger.warn(
      { role: role.user },
      'the service connects as a PostgreSQL superuser: give DATABASE_URL a role with row privileges only and DATABASE_MIGRATION_URL the owner role',
    );
  let applied: string[] = [];
  if (database.migrationUrl !== database.url) {
    applied = await withMigrationLock(database.migrationUrl, async () => {
      const owner = await openOrm(database.migrationUrl, { poolMax: 2, migrationsOnly: true });
      try {
        const names = await migrate(owner);
        await grantAppRole(database.migrationUrl, role.user);
        return names;
      } finally {
        await owner.close();
      }
    });
  }
  const orm = await openOrm(database.url, options);
  try {
    if (database.migrationUrl === database.url) applied = await withMigrationLock(database.url, () => migrate(orm));
    return { orm, applied };
  } catch (error) {
    await orm.close();
    throw error;
  }
}
