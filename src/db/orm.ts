import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig, type OrmOptions } from '../../mikro-orm.config.js';

export type Orm = MikroORM;

export async function openOrm(clientUrl: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(clientUrl, options));
}

/**
 * Applies every committed migration not yet applied, all in one transaction; never synchronises the
 * schema from entities. The service's session timeouts do not apply: a migration may rewrite a large table.
 */
export async function migrate(orm: Orm): Promise<string[]> {
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
