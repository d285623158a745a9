import { type Opt, type Ref } from '@mikro-orm/core';
import { Formula, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, ID, ObjectType } from 'type-graphql';
import { Tenant } from '../tenants/tenant.entity.js';
import { uuidv7 } from './uuid.js';

/** Identity and audit columns every table has. */
@ObjectType({ simpleResolvers: true })
export abstract class BaseEntity {
  @Field(() => ID, { description: 'Stable identifier (UUID v7, time-ordered); the REST API addresses records by it.' })
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Field(() => Date, { description: 'When the record was created.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the record last changed.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

/**
 * A row that belongs to one tenant. The `tenant` filter (db/tenant-scope.ts) restricts every query to
 * the request's tenant and the tenant stamp fills `tenant` on insert, so services never pass it.
 * `deletedAt` is the soft-delete marker, hidden by the `live` filter.
 */
@ObjectType({ simpleResolvers: true })
export abstract class TenantScopedEntity extends BaseEntity {
  @ManyToOne(() => Tenant, { ref: true, hidden: true, index: true })
  tenant!: Ref<Tenant> & Opt;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  deletedAt?: Date | null;

  /**
   * Rows in the whole filtered list: db/listing.ts selects its count subquery under this property
   * so the ORM maps it back. A formula only to be mapped; lazy, so its own SQL is never selected.
   */
  @Formula(() => 'null', { lazy: true, hidden: true, persist: false })
  listTotal?: number | string;
}

/**
 * The index a tenant's list reads through: its live rows in uuid order (the default order and every
 * sort's tie-break), so a page stops after its rows and the list's total is an index-only count.
 */
export const liveListIndex = (table: string) => ({
  name: `${table}_live_index`,
  expression: `create index "${table}_live_index" on "${table}" ("tenant_uuid", "uuid") where "deleted_at" is null`,
});

/** A live-row index for one documented list order, ending in uuid (every list order's tie-breaker). */
export const liveSortIndex = (name: string, table: string, columns: string[]) => ({
  name,
  expression: `create index "${name}" on "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) where "deleted_at" is null`,
});

/**
 * The indexes behind a list's filters (issue 31): one live-row index a filterable column, after the
 * tenant and ending in uuid, so a filter (equality, `in` or a range) that matches few of the tenant's
 * rows finds them without reading the tenant's list, and a page of its matches comes in uuid order.
 * Columns an index already serves (a foreign key's own index, a sort index, a unique index) are not
 * named; test/list-filter-indexes.test.ts plans every filter of every list on 100,000 rows.
 */
export function LiveFilterIndexes(table: string, columns: string[]): ClassDecorator {
  return (target) => {
    for (const column of columns) Index(liveSortIndex(`${table}_${column}_filter_index`, table, ['tenant_uuid', column, 'uuid']))(target as never);
  };
}

/**
 * A tenant row an integrator may also name by its own identifier (`external_id`): optional, unique
 * per tenant among live rows of the resource (`externalIdIndex`).
 */
@ObjectType({ simpleResolvers: true })
export abstract class ExternallyIdentifiedEntity extends TenantScopedEntity {
  @Field(() => String, { nullable: true, description: 'The integrator’s own identifier (at most 255 characters), unique within the tenant for this resource.' })
  @Property({ length: 255, nullable: true })
  externalId?: string | null;
}

/** The index that keeps `external_id` unique per tenant among live rows (and finds a row by it). */
export const externalIdIndex = (table: string) => ({
  name: `${table}_external_id_unique`,
  expression: `create unique index "${table}_external_id_unique" on "${table}" ("tenant_uuid", "external_id") where "deleted_at" is null and "external_id" is not null`,
});
