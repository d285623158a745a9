import type { EntityClass, FilterQuery, LockMode, Ref } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { humanize } from '../errors/humanize.js';
import { invalid, notFound } from '../errors/domain-error.js';
import type { TenantScopedEntity } from './base.entity.js';
import { readableAsJson, unionByUuids } from './rows.js';
import { sqlRows } from './sql-rows.js';
import { LIVE_FILTER, tenantScopeOf } from './tenant-scope.js';
import { isUuid } from './uuid.js';

/** A live row of the request's tenant, or 404 — a foreign or malformed uuid reads exactly like a missing one. */
export async function findOrFail<T extends TenantScopedEntity>(em: EntityManager, entity: EntityClass<T>, uuid: string, label: string): Promise<T> {
  const row = isUuid(uuid) ? await em.findOne(entity, { uuid } as FilterQuery<T>) : null;
  if (!row) throw notFound(label);
  return row;
}

/** The 422 for input fields (`courseUuid`) that name no live row of the tenant, every one listed. */
export const invalidReferences = (fields: string[]) =>
  invalid(Object.fromEntries(fields.map((field) => [field, [`The selected ${humanize(field)} is invalid.`]])));

/** The 422 for an input field (`courseUuid`) that names no live row of the tenant. */
export const invalidReference = (field: string) => invalidReferences([field]);

/** A related row named in an input (`courseUuid`), or a 422 on that field. */
export async function requireRelated<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  uuid: string,
  field: string,
  options: { lockMode?: LockMode } = {},
): Promise<T> {
  const row = isUuid(uuid) ? await em.findOne(entity, { uuid } as FilterQuery<T>, options) : null;
  if (!row) throw invalidReference(field);
  return row;
}

/**
 * The row a reference points at: the entity it already holds when a rule loaded it in this request,
 * else one lookup in the tenant (deleted rows included: it was valid when it was set).
 */
export async function referenced<T extends TenantScopedEntity>(em: EntityManager, entity: EntityClass<T>, reference: Ref<T>): Promise<T> {
  if (reference.isInitialized()) return reference.getEntity() as T;
  return em.findOneOrFail(entity, { uuid: reference.uuid } as FilterQuery<T>, { filters: { [LIVE_FILTER]: false } });
}

/**
 * Batch destroy, all or nothing: every uuid must name a live row of this tenant (and match `within`,
 * e.g. the parent of a nested collection), otherwise a 422 lists the unknown ones and nothing is deleted.
 */
export async function softDeleteMany<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  uuids: string[],
  beforeDelete?: (rows: T[], em: EntityManager) => Promise<void>,
  within: Record<string, unknown> = {},
): Promise<number> {
  const unique = [...new Set(uuids)];
  if (unique.length === 0) throw invalid({ uuids: ['The uuids field must contain at least one uuid.'] });
  return em.transactional(async (tx) => {
    const valid = unique.filter(isUuid);
    const rows = valid.length
      ? await tx.find(entity, { ...within, uuid: { $in: valid } } as unknown as FilterQuery<T>, { lockMode: 4 /* PESSIMISTIC_WRITE */ })
      : [];
    const found = new Set(rows.map((row) => row.uuid));
    const missing = unique.filter((uuid) => !found.has(uuid));
    if (missing.length > 0) throw invalid({ uuids: [`These uuids do not exist: ${missing.join(', ')}.`] });
    await beforeDelete?.(rows, tx);
    const now = new Date();
    for (const row of rows) row.deletedAt = now;
    await tx.flush();
    return rows.length;
  });
}

/** 422 on `field` when another live row of this tenant already matches `where`. */
export async function ensureUnique<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  where: FilterQuery<T>,
  self: string,
  field: string,
): Promise<void> {
  const clash = await em.findOne(entity, { $and: [where, { uuid: { $ne: self } }] } as unknown as FilterQuery<T>);
  if (clash) throw invalid({ [field]: [`The ${humanize(field)} has already been taken.`] });
}

/** One row asked for by uuid. */
export interface EntityRequest {
  entity: EntityClass<object>;
  uuid: string;
}

/**
 * What `em.findOne(entity, { uuid })` returns for each request (a live row of the EntityManager's
 * tenant, managed by it, or null), for rows of several entities in ONE statement, each row selected
 * as JSON and mapped back by the ORM into the identity map: the UNION ALL of db/rows.ts with
 * the tenant and live filters as `tenantScopeOf` writes them (each uuid matched by equality, which
 * plans cheaply), on the EntityManager's transaction when it is in one. Entities whose columns JSON would change (db/rows.ts)
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
