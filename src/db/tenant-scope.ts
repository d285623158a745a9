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

/** Scopes an EntityManager fork to one tenant. */
export function scopeToTenant<T extends EntityManager>(em: T, tenantUuid: string): T {
  em.setFilterParams(TENANT_FILTER, { id: tenantUuid });
  return em;
}

/** Stamps the tenant of the flushing EntityManager on every new tenant-scoped row. */
export class TenantStamp implements EventSubscriber<TenantScopedEntity> {
  beforeCreate({ entity, em }: EventArgs<TenantScopedEntity>): void {
    if (!(entity instanceof TenantScopedEntity) || entity.tenant) return;
    const tenantUuid = em.getFilterParams<{ id?: string }>(TENANT_FILTER)?.id;
    if (!tenantUuid) throw new Error(`refusing to insert ${entity.constructor.name} outside a tenant scope`);
    entity.tenant = em.getReference(Tenant, tenantUuid, { wrapped: true });
  }
}
