import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from './sql-rows.js';
import { readableAsJson, unionByUuids } from './rows-by-uuid.js';
import { tenantScopeOf } from './tenant-scope.js';
import { isUuid } from './uuid.js';

/** One row asked for by uuid. */
export interface EntityRequest {
  entity: EntityClass<object>;
  uuid: string;
}

/**
 * What `em.findOne(entity, { uuid })` returns for each request (a live row of the EntityManager's
 * tenant, managed by it, or null), for rows of several entities in ONE statement, each row selected
 * as JSON and mapped back by the ORM into the identity map: the UNION ALL of db/rows-by-uuid.ts with
 * the tenant and live filters as `tenantScopeOf` writes them (each uuid matched by equality, which
 * plans cheaply), on the EntityManager's transaction when it is in one. Entities whose columns JSON would change (db/rows-by-uuid.ts)
 * and malformed uuids are looked up on their own.
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
  const rows = await unionOfLive(em, requests, combined);
  for (const { part, row } of rows) found[part] = em.map(requests[part]!.entity, JSON.parse(row) as Record<string, unknown>);
  return found;
}

interface PartRow {
  part: number;
  row: string;
}

async function unionOfLive(em: EntityManager, requests: EntityRequest[], combined: number[]): Promise<PartRow[]> {
  const entities = combined.map((index) => requests[index]!.entity);
  const scopes = entities.map((entity) => tenantScopeOf(em, entity, { live: true }));
  const values = combined.flatMap((index, at) => [requests[index]!.uuid, ...scopes[at]!.values]);
  const rows = await sqlRows<PartRow>(em, unionByUuids(em, entities, scopes, 'live', 'one uuid'), values);
  return rows.map(({ part, row }) => ({ part: combined[part]!, row }));
}
