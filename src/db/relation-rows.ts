import { type EntityClass, raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readFields, readRows, type Row } from './rows.js';
import { LIVE_FILTER } from './tenant-scope.js';

/*
 * The loaders' batch reads (context/loaders.ts) on the query builder, for any entity: each runs the
 * EntityManager's filters, so it reads the request's tenant only.
 */

/** Rows by uuid, soft-deleted ones too, for an entity `readRowsByUuid` cannot read as JSON. */
export async function readRowsByUuidOf(em: EntityManager, entity: EntityClass<object>, uuids: string[]): Promise<Row<object>[]> {
  const query = em
    .createQueryBuilder(entity, 'loaded')
    .select(readFields(em, entity) as never)
    .where({ uuid: { $in: uuids } } as never);
  await query.applyFilters({ [LIVE_FILTER]: false });
  return readRows(em, entity, query);
}

/** A property's column under the window's alias `ranked`. */
function rankedColumn(em: EntityManager, entity: EntityClass<object>, property: string): string {
  const properties = em.getMetadata().get(entity).properties as Record<string, { fieldNames: string[] }>;
  return `ranked.${em.getPlatform().quoteIdentifier(properties[property]!.fieldNames[0]!)}`;
}

/** The window's SQL order for `orderBy`, ties broken by uuid. */
export function rankOf(em: EntityManager, entity: EntityClass<object>, orderBy: Record<string, 'asc' | 'desc'>): string {
  return Object.entries({ ...orderBy, uuid: 'asc' })
    .map(([property, direction]) => `${rankedColumn(em, entity, property)} ${direction}`)
    .join(', ');
}

/**
 * Live rows whose `foreignKey` is one of `keys`, the first `limit` per key in the order `rank` (SQL
 * over alias `ranked`), after the uuid `afterUuid` when given: one statement, a window per key.
 */
export async function firstRowsPer<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  foreignKey: string,
  keys: string[],
  limit: number,
  rank: string,
  afterUuid?: string,
): Promise<Row<T>[]> {
  const partition = rankedColumn(em, entity as EntityClass<object>, foreignKey);
  const ranked = em
    .createQueryBuilder(entity, 'ranked')
    .select([...readFields(em, entity as EntityClass<object>), raw(`row_number() over (partition by ${partition} order by ${rank}) as relation_rank`)] as never)
    .where({ [foreignKey]: { $in: keys }, ...(afterUuid ? { uuid: { $gt: afterUuid } } : {}) } as never);
  await ranked.applyFilters();
  const query = em
    .createQueryBuilder(entity, 'loaded')
    .select('*')
    .from(ranked as never, 'loaded')
    .where(raw('relation_rank <= ?', [limit]) as never)
    .orderBy({ [raw('relation_rank')]: 'asc' } as never);
  return readRows(em, entity, query as never);
}

/** How many live rows' `foreignKey` is each of `keys`, in one grouped statement (keys without rows are absent). */
export async function countsPer(em: EntityManager, entity: EntityClass<object>, foreignKey: string, keys: string[]): Promise<Map<string, number>> {
  const partition = rankedColumn(em, entity, foreignKey).replace(/^ranked\./, 'counted.');
  const query = em
    .createQueryBuilder(entity, 'counted')
    .select([raw(`${partition} as parent_uuid`), raw('count(*) as total')] as never)
    .where({ [foreignKey]: { $in: keys } } as never)
    .groupBy(raw(partition) as never);
  await query.applyFilters();
  const rows = (await query.execute('all', false)) as unknown as { parent_uuid: string; total: string | number }[];
  return new Map(rows.map((row) => [row.parent_uuid, Number(row.total)]));
}
