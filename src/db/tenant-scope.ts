import { type EntityClass, type EntityManager, type EventArgs, type EventSubscriber } from '@mikro-orm/core';
import { TenantScopedEntity } from './base.entity.js';
import { Tenant } from '../tenants/tenant.entity.js';

export const TENANT_FILTER = 'tenant';
export const LIVE_FILTER = 'live';

export function isTenantScoped(entity: EntityClass<object>): boolean {
  return entity.prototype instanceof TenantScopedEntity;
}

/**
 * Default-on filters for every tenant-scoped entity. The tenant filter takes an argument and
 * MikroORM refuses to run a query on such an entity while that argument is missing, so an
 * EntityManager that was not scoped to a tenant cannot read tenant data at all.
 */
export function scopeFilters(entities: EntityClass<object>[]) {
  const scoped = entities.filter(isTenantScoped);
  return {
    [TENANT_FILTER]: { cond: (args: { id: string }) => ({ tenant: args.id }), entity: scoped, default: true },
    [LIVE_FILTER]: { cond: { deletedAt: null }, entity: scoped, default: true, args: false },
  };
}

/** The default filters as SQL, for the few statements written by hand (db/rows.ts, db/page-statement.ts). */
export interface TenantScope {
  /** Whether the entity belongs to tenants; if so, the tenant's uuid is the first of `values`. */
  byTenant: boolean;
  /** Bind values of the conditions, first in the statement's parameters. */
  values: unknown[];
  /** The conditions on the table under `alias`, numbering their parameters from `first`. */
  conditions(alias: string, first: number): string[];
}

/** The tenant an EntityManager is scoped to (`scopeToTenant`); refuses `doing` anything outside one. */
export function tenantOf(em: EntityManager, doing = 'read tenant data'): string {
  const tenantUuid = em.getFilterParams<{ id?: string }>(TENANT_FILTER)?.id;
  if (!tenantUuid) throw new Error(`refusing to ${doing} outside a tenant scope`);
  return tenantUuid;
}

/**
 * What the tenant filter (and, with `live`, the live filter) adds to a query on `entity`, for the
 * EntityManager's tenant. Like the filter itself, it refuses to read tenant data outside a tenant scope.
 */
export function tenantScopeOf(em: EntityManager, entity: EntityClass<object>, { live }: { live: boolean }): TenantScope {
  if (!isTenantScoped(entity)) return { byTenant: false, values: [], conditions: () => [] };
  const tenantUuid = tenantOf(em, `read ${entity.name}`);
  const meta = em.getMetadata().get(entity);
  const column = (alias: string, property: string) =>
    `${alias}.${em.getPlatform().quoteIdentifier((meta.properties as Record<string, { fieldNames: string[] }>)[property]!.fieldNames[0]!)}`;
  return {
    byTenant: true,
    values: [tenantUuid],
    conditions: (alias, first) => [`${column(alias, 'tenant')} = $${first}::uuid`, ...(live ? [`${column(alias, 'deletedAt')} is null`] : [])],
  };
}

/**
 * The one way to read across tenants, for public pages and documents whose uuid or slug is the key:
 * the find options that turn the tenant filter off (and, with `deleted`, the live filter too). A test
 * (test/tenant-scope-homes.test.ts) fails when anything else turns the tenant filter off.
 * Being public, such reads go to the read replica when there is a fresh one (db/service-driver.ts);
 * `primary` is for a read that must see what the same request has just written. In a transaction
 * every read is the primary's anyway.
 */
export function acrossTenants(rows: 'live' | 'deleted too' = 'live', from: 'replica' | 'primary' = 'replica') {
  return {
    filters: { [TENANT_FILTER]: false, ...(rows === 'deleted too' ? { [LIVE_FILTER]: false } : {}) },
    connectionType: from === 'replica' ? ('read' as const) : ('write' as const),
  };
}

/** Scopes an EntityManager fork to one tenant. */
export function scopeToTenant<T extends EntityManager>(em: T, tenantUuid: string): T {
  em.setFilterParams(TENANT_FILTER, { id: tenantUuid });
  return em;
}

/** Stamps the tenant of the flushing EntityManager on every new tenant-scoped row. */
export class TenantStamp implements EventSubscriber<TenantScopedEntity> {
  beforeCreate({ entity, em }: EventArgs<TenantScopedEntity>): void {
    if (!(entity instanceof TenantScopedEntity) || entity.tenant) return;
    entity.tenant = em.getReference(Tenant, tenantOf(em as EntityManager, `insert ${entity.constructor.name}`), { wrapped: true });
  }
}
