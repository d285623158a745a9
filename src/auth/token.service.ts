import type { EntityManager } from '@mikro-orm/postgresql';
import { queryPrepared } from '../db/prepared.js';
import { AccessToken } from './access-token.entity.js';
import { OAuthClient } from './oauth-client.entity.js';
import { randomToken, sameHash, sha256Hex } from './secrets.js';

/** Who a valid bearer token speaks for. */
export interface Principal {
  clientId: string;
  tenant: { uuid: string; identifier: string; name: string };
}

interface PrincipalRow {
  client_id: string;
  tenant_uuid: string;
  tenant_identifier: string;
  tenant_name: string;
}

// The per-request hot path: one indexed lookup that also enforces expiry and revocation of the
// token and of its client pair, so a rotation is seen by every server process on the next request.
// A prepared statement: PostgreSQL plans it once per connection, and no ORM code runs for it.
const PRINCIPAL_BY_TOKEN_HASH = `
  select c.client_id, t.uuid as tenant_uuid, t.identifier as tenant_identifier, t.name as tenant_name
  from oauth_access_tokens a
  join oauth_clients c on c.uuid = a.client_uuid
  join tenants t on t.uuid = c.tenant_uuid
  where a.token_hash = $1 and a.revoked_at is null and c.revoked_at is null and a.expires_at > now()`;

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

  async principal(accessToken: string): Promise<Principal | null> {
    const [row] = await queryPrepared<PrincipalRow>(this.em, PRINCIPAL_BY_TOKEN_HASH, [sha256Hex(accessToken)]);
    if (!row) return null;
    return {
      clientId: row.client_id,
      tenant: { uuid: row.tenant_uuid, identifier: row.tenant_identifier, name: row.tenant_name },
    };
  }
}
