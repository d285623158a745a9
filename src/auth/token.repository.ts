import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { sqlRows } from '../db/sql-rows.js';

export interface ActiveTokenRow {
  client_id: string;
  tenant_uuid: string;
  tenant_identifier: string;
  tenant_name: string;
  expires_at: Date;
}

/**
 * The per-request lookup, and the one definition of a usable token: its hash, neither it nor its
 * client pair revoked, not expired. One indexed read.
 */
const PRINCIPAL_BY_TOKEN_HASH = `
  select client.client_id, tenant.uuid as tenant_uuid, tenant.identifier as tenant_identifier, tenant.name as tenant_name, token.expires_at
  from oauth_access_tokens token
  join oauth_clients client on client.uuid = token.client_uuid
  join tenants tenant on tenant.uuid = client.tenant_uuid
  where token.token_hash = $1 and token.revoked_at is null and client.revoked_at is null and token.expires_at > now()`;

/** The client and tenant of a usable token, and when it expires. */
export async function activeToken(em: EntityManager, tokenHash: string): Promise<ActiveTokenRow | undefined> {
  const [row] = await sqlRows<ActiveTokenRow>(em, PRINCIPAL_BY_TOKEN_HASH, [tokenHash]);
  return row;
}

// One statement across all tenants: idempotent, so any number of server processes may run it at once.
const PURGE = `delete from oauth_access_tokens where expires_at < now() - make_interval(secs => ?)`;

/** Deletes access tokens that expired more than `graceSeconds` ago; returns how many. */
export async function purgeExpiredTokens(orm: Orm, graceSeconds: number): Promise<number> {
  const result = await orm.em.getConnection().execute(PURGE, [graceSeconds], 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
