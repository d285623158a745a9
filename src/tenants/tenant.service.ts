import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../errors/domain-error.js';
import { Tenant } from './tenant.entity.js';

const IDENTIFIER = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Creates and finds tenants; used by the operator CLI and startup provisioning. */
export class TenantService {
  constructor(private readonly em: EntityManager) {}

  async create(identifier: string, name = identifier): Promise<Tenant> {
    if (!IDENTIFIER.test(identifier)) {
      throw new DomainError('BAD_USER_INPUT', 'A tenant identifier is 1-63 lowercase letters, digits or hyphens.');
    }
    if (await this.em.findOne(Tenant, { identifier })) {
      throw new DomainError('CONFLICT', `Tenant "${identifier}" already exists.`);
    }
    const tenant = this.em.create(Tenant, { identifier, name });
    await this.em.flush();
    return tenant;
  }

  async ensure(identifier: string): Promise<Tenant> {
    return (await this.em.findOne(Tenant, { identifier })) ?? this.create(identifier);
  }

  findByIdentifier(identifier: string): Promise<Tenant | null> {
    return this.em.findOne(Tenant, { identifier });
  }
}
