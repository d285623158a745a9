import { type EntityClass, type FilterQuery, raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readableAsJson } from './rows-by-uuid.js';
import { isUuid } from './uuid.js';

/** One row asked for by uuid. */
export interface EntityRequest {
  entity: EntityClass<object>;
  uuid: string;
}

/**
 * What `em.findOne(entity, { uuid })` returns for each request (a live row of the EntityManager's
 * tenant, managed by it, or null), for rows of several entities in ONE statement. Each part is the
 * ORM's own query for that lookup, filters applied, selecting the row as JSON; the parts are joined
 * by UNION ALL and each row is mapped back by the ORM into the identity map. Entities whose columns
 * JSON would change (db/rows-by-uuid.ts) and malformed uuids are looked up on their own.
 */
export async function findLiveByUuids(em: EntityManager, requests: EntityRequest[]): Promise<(object | null)[]> {
  const found: (object | null)[] = requests.map(() => null);
  const combined: number[] = [];
  for (const [index, { entity, uuid }] of requests.entries()) {
    if (!isUuid(uuid)) continue;
    if (readableAsJson(em, entity)) combined.push(index);
    else found[index] = await em.findOne(entity, { uuid } as FilterQuery<object>);
  }
  if (combined.length === 0) return found;
  const parts = await Promise.all(
    combined.map(async (index) => {
      const { entity, uuid } = requests[index]!;
      const part = em
        .createQueryBuilder(entity, 't')
        .select([raw(`${index} as part`), raw('row_to_json(t)::text as row')] as never)
        .where({ uuid } as never);
      await part.applyFilters();
      return part;
    }),
  );
  const [first, ...rest] = parts;
  const { sql, params } = (rest.length > 0 ? first!.unionAll(...rest) : first!).toQuery();
  const rows = await em.getConnection().execute<{ part: number; row: string }[]>(sql, params as unknown[], 'all', em.getTransactionContext());
  for (const { part, row } of rows) found[part] = em.map(requests[part]!.entity, JSON.parse(row) as Record<string, unknown>);
  return found;
}
