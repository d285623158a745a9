import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../errors/domain-error.js';
import { Tenant } from '../tenants/tenant.entity.js';
import { TenantService } from '../tenants/tenant.service.js';
import { AccessToken } from './access-token.entity.js';
import { OAuthClient } from './oauth-client.entity.js';
import { forgetClientHere } from './principal-cache.js';
import { MIN_SECRET_LENGTH, newClientId, randomToken, sha256Hex } from './secrets.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  tenant: string;
}

export interface ClientSummary {
  clientId: string;
  tenant: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Provisions, rotates and lists OAuth2 client credentials (operator side). */
export class ClientService {
  constructor(private readonly em: EntityManager) {}

  async create(tenantIdentifier: string, name = 'default'): Promise<ClientCredentials> {
    const tenant = await this.tenant(tenantIdentifier);
    const clientSecret = randomToken();
    const client = this.em.create(OAuthClient, { tenant, clientId: newClientId(), secretHash: sha256Hex(clientSecret), name });
    await this.em.flush();
    return { clientId: client.clientId, clientSecret, tenant: tenant.identifier };
  }

  /** Issues a new pair for the same tenant and revokes the old pair and every token it holds, atomically. */
  async rotate(clientId: string): Promise<ClientCredentials> {
    const rotated = await this.em.transactional(async (em) => {
      const old = await em.findOne(OAuthClient, { clientId, revokedAt: null }, { populate: ['tenant'], lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (!old) throw new DomainError('NOT_FOUND', `No active client "${clientId}".`);
      const now = new Date();
      old.revokedAt = now;
      await em.nativeUpdate(AccessToken, { client: old, revokedAt: null }, { revokedAt: now });
      const clientSecret = randomToken();
      const fresh = em.create(OAuthClient, { tenant: old.tenant, clientId: newClientId(), secretHash: sha256Hex(clientSecret), name: old.name });
      await em.flush();
      return { clientId: fresh.clientId, clientSecret, tenant: old.tenant.getEntity().identifier };
    });
    // Committed: this process refuses the old tokens from now on; the others hear it by NOTIFY.
    forgetClientHere(clientId);
    return rotated;
  }

  async list(): Promise<ClientSummary[]> {
    const clients = await this.em.findAll(OAuthClient, { populate: ['tenant'], orderBy: { createdAt: 'asc' } });
    return clients.map((client) => ({
      clientId: client.clientId,
      tenant: client.tenant.getEntity().identifier,
      name: client.name,
      createdAt: client.createdAt,
      revokedAt: client.revokedAt ?? null,
    }));
  }

  /** Makes sure the given tenant and client exist with this secret (deployment provisioning). */
  async ensure({ tenant: identifier, clientId, clientSecret }: ClientCredentials): Promise<'created' | 'updated' | 'unchanged'> {
    if (clientSecret.length < MIN_SECRET_LENGTH) {
      throw new DomainError('BAD_USER_INPUT', `SEED_CLIENT_SECRET must be at least ${MIN_SECRET_LENGTH} characters.`);
    }
    const tenant = await new TenantService(this.em).ensure(identifier);
    const existing = await this.em.findOne(OAuthClient, { clientId });
    if (!existing) {
      this.em.create(OAuthClient, { tenant, clientId, secretHash: sha256Hex(clientSecret), name: 'seed' });
      await this.em.flush();
      return 'created';
    }
    if (existing.tenant.uuid !== tenant.uuid) {
      throw new DomainError('CONFLICT', `Client "${clientId}" belongs to another tenant.`);
    }
    if (existing.secretHash === sha256Hex(clientSecret)) return 'unchanged';
    existing.secretHash = sha256Hex(clientSecret);
    await this.em.flush();
    return 'updated';
  }

  private async tenant(identifier: string): Promise<Tenant> {
    const tenant = await this.em.findOne(Tenant, { identifier });
    if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${identifier}".`);
    return tenant;
  }
}
