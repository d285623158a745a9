import type { Orm } from '../db/orm.js';

// Across all tenants, idempotent: any number of processes may run them at once. Nonces and access
// tokens are secrets with no history: gone once expired. A dead offer (expired, redeemed or revoked)
// stays `graceSeconds` for the offers list; its claims (credential_claims) are kept for good.
// (least() skips nulls: an offer dies at the first of its expiry, redemption and revocation.)
const PURGES = [
  `delete from wallet_nonces where expires_at < now()`,
  `delete from wallet_access_tokens where expires_at < now()`,
  `delete from credential_offers
    where least(expires_at, redeemed_at, revoked_at) < now() - make_interval(secs => ?)`,
];

/** Deletes expired wallet nonces and access tokens, and offers dead for longer than `graceSeconds`; returns how many rows. */
export async function purgeWalletLeftovers(orm: Orm, graceSeconds: number): Promise<number> {
  const connection = orm.em.getConnection();
  let deleted = 0;
  for (const sql of PURGES) {
    const result = (await connection.execute(sql, sql.includes('?') ? [graceSeconds] : [], 'run')) as { affectedRows?: number };
    deleted += result.affectedRows ?? 0;
  }
  return deleted;
}
