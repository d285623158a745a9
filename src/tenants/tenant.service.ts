import type { EntityManager } from '@mikro-orm/postgresql';
import { isEmail } from 'class-validator';
import { normalizeLinkHost } from '../certificates/verification-link.js';
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

  /** Replaces the hosts a certificate's public verification url may point to (besides this service). */
  async setLinkHosts(identifier: string, hosts: string[]): Promise<Tenant> {
    const tenant = await this.findByIdentifier(identifier);
    if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${identifier}".`);
    const normalized = hosts.map((host) => normalizeLinkHost(host));
    const wrong = hosts.filter((_host, index) => !normalized[index]);
    if (wrong.length > 0) throw new DomainError('BAD_USER_INPUT', `Not a domain name: ${wrong.join(', ')}`);
    tenant.allowedLinkHosts = [...new Set(normalized as string[])];
    await this.em.flush();
    return tenant;
  }

  /** Sets (or with null clears) who hears about the tenant's integration problems, e.g. a disabled webhook endpoint. */
  async setContactEmail(identifier: string, email: string | null): Promise<Tenant> {
    const tenant = await this.findByIdentifier(identifier);
    if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${identifier}".`);
    if (email !== null && !isEmail(email)) throw new DomainError('BAD_USER_INPUT', `Not an e-mail address: ${email}`);
    tenant.contactEmail = email;
    await this.em.flush();
    return tenant;
  }

  list(): Promise<Tenant[]> {
    return this.em.find(Tenant, {}, { orderBy: { identifier: 'asc' } });
  }

  findByIdentifier(identifier: string): Promise<Tenant | null> {
    return this.em.findOne(Tenant, { identifier });
  }
}
