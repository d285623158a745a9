import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig, type OrmOptions } from '../../mikro-orm.config.js';

export type Orm = MikroORM;

export async function openOrm(clientUrl: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(clientUrl, options));
}

/** Applies every committed migration not yet applied; never synchronises the schema from entities. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

export async function pendingMigrationCount(orm: Orm): Promise<number> {
  return (await orm.migrator.getPending()).length;
}
