import { type Opt, type Ref } from '@mikro-orm/core';
import { Formula, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, ID, ObjectType } from 'type-graphql';
import { Tenant } from '../tenants/tenant.entity.js';
import { uuidv7 } from './uuid.js';

/** Identity and audit columns every table has. */
@ObjectType({ simpleResolvers: true })
export abstract class BaseEntity {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Field(() => Date)
  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date)
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
   * Rows in the whole filtered list. Declared so db/listing.ts can select its count subquery under
   * this property's column and have it mapped back; lazy, so the formula itself is never run.
   */
  @Formula(() => 'count(*) over()', { lazy: true, hidden: true, persist: false })
  listTotal?: number | string;
}
