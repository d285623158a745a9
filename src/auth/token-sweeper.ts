import type { Orm } from '../db/orm.js';

// One statement across all tenants: idempotent, so any number of server processes may run it at once.
const PURGE = `delete from oauth_access_tokens where expires_at < now() - make_interval(secs => ?)`;

/** Deletes access tokens that expired more than `graceSeconds` ago; returns how many. */
export async function purgeExpiredTokens(orm: Orm, graceSeconds: number): Promise<number> {
  const result = await orm.em.getConnection().execute(PURGE, [graceSeconds], 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
