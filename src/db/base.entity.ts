import { type Opt, type Ref } from '@mikro-orm/core';
import { ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Tenant } from '../tenants/tenant.entity.js';
import { uuidv7 } from './uuid.js';

/** Identity and audit columns every table has. */
export abstract class BaseEntity {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

/**
 * A row that belongs to one tenant. The `tenant` filter (db/tenant-scope.ts) restricts every query to
 * the request's tenant and the tenant stamp fills `tenant` on insert, so services never pass it.
 * `deletedAt` is the soft-delete marker, hidden by the `live` filter.
 */
export abstract class TenantScopedEntity extends BaseEntity {
  @ManyToOne(() => Tenant, { ref: true, hidden: true, index: true })
  tenant!: Ref<Tenant> & Opt;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  deletedAt?: Date | null;
}
