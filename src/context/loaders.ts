import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { readRows, type Row } from '../db/rows.js';
import { LIVE_FILTER } from '../db/tenant-scope.js';
import { uuidOf, type RelationValue } from '../graphql/relations.js';

/**
 * The DataLoaders of one request. Created per request (never module level) so a cached row can
 * never cross into another tenant's request; every batch runs on the request's tenant-scoped fork
 * and returns plain rows (db/rows.ts), since relation fields only display what they load.
 */
export class Loaders {
  private readonly byKey = new Map<string, DataLoader<unknown, unknown>>();

  constructor(private readonly em: EntityManager) {}

  /**
   * Rows by primary key in one query per batch. Soft-deleted rows are included: what points at a
   * deleted row still shows it (a deleted institution's name on its certificates).
   */
  byUuid<T extends object>(entity: EntityClass<T>): DataLoader<string, Row<T> | null> {
    return this.cached(`uuid:${entity.name}`, () =>
      new DataLoader<string, Row<T> | null>(async (uuids) => {
        const query = this.em.createQueryBuilder(entity, 'loaded').select('*').where({ uuid: { $in: [...uuids] } } as never);
        await query.applyFilters({ [LIVE_FILTER]: false });
        const found = new Map((await readRows(this.em, entity, query)).map((row) => [(row as unknown as { uuid: string }).uuid, row]));
        return uuids.map((uuid) => found.get(uuid) ?? null);
      }),
    );
  }

  /** Live rows whose `foreignKey` points at each key, one query per batch (one-to-many). */
  manyBy<T extends object>(entity: EntityClass<T>, foreignKey: string, orderBy: Record<string, 'asc' | 'desc'> = { uuid: 'asc' }): DataLoader<string, Row<T>[]> {
    return this.cached(`many:${entity.name}.${foreignKey}`, () =>
      new DataLoader<string, Row<T>[]>(async (keys) => {
        const query = this.em.createQueryBuilder(entity, 'loaded').select('*').where({ [foreignKey]: { $in: [...keys] } } as never).orderBy(orderBy as never);
        await query.applyFilters();
        const grouped = new Map<string, Row<T>[]>(keys.map((key) => [key, []]));
        for (const row of await readRows(this.em, entity, query)) {
          grouped.get(uuidOf((row as Record<string, unknown>)[foreignKey] as RelationValue))?.push(row);
        }
        return keys.map((key) => grouped.get(key)!);
      }),
    );
  }

  private cached<L extends DataLoader<never, unknown>>(key: string, create: () => L): L {
    let loader = this.byKey.get(key);
    if (!loader) this.byKey.set(key, (loader = create() as unknown as DataLoader<unknown, unknown>));
    return loader as unknown as L;
  }
}
