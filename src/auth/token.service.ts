import type { EntityManager } from '@mikro-orm/postgresql';
import { AccessToken } from './access-token.entity.js';
import { OAuthClient } from './oauth-client.entity.js';
import { randomToken, sameHash, sha256Hex } from './secrets.js';
import { activeToken } from './token.repository.js';

/** Who a valid bearer token speaks for. */
export interface Principal {
  clientId: string;
  tenant: { uuid: string; identifier: string; name: string };
}

/** Issues opaque access tokens and resolves them back to a principal. */
export class TokenService {
  constructor(
    private readonly em: EntityManager,
    private readonly ttlSeconds: number,
  ) {}

  async findActiveClient(clientId: string, clientSecret: string): Promise<OAuthClient | null> {
    const client = await this.em.findOne(OAuthClient, { clientId, revokedAt: null });
    return client && sameHash(client.secretHash, sha256Hex(clientSecret)) ? client : null;
  }

  newToken(): { accessToken: string; expiresAt: Date } {
    return { accessToken: randomToken(), expiresAt: new Date(Date.now() + this.ttlSeconds * 1000) };
  }

  /** Stores only the hash; the token itself leaves the service once, in the token response. */
  async record(client: OAuthClient, accessToken: string, expiresAt: Date): Promise<void> {
    this.em.create(AccessToken, { tokenHash: sha256Hex(accessToken), client, expiresAt });
    await this.em.flush();
  }

  /** The principal of an active token and when the token expires. */
  async principalByHash(tokenHash: string): Promise<{ principal: Principal; expiresAt: Date } | null> {
    const row = await activeToken(this.em, tokenHash);
    if (!row) return null;
    return {
      principal: { clientId: row.client_id, tenant: { uuid: row.tenant_uuid, identifier: row.tenant_identifier, name: row.tenant_name } },
      expiresAt: new Date(row.expires_at),
    };
  }
}
