import type { Orm } from '../db/orm.js';
import { PAST_EXPIRY_SQL } from './certificate-rules.js';

// One statement across all tenants: atomic, idempotent, and safe with any number of server processes.
// The expiry rule is isPastExpiry's (certificate-rules.ts), in its SQL form.
const SWEEP = `update certificates set status = 'expired', updated_at = now()
  where ${PAST_EXPIRY_SQL} and deleted_at is null`;

/** Persists `expired` for issued certificates past their expiry (they already read as expired before). */
export async function sweepExpiredCertificates(orm: Orm): Promise<number> {
  const result = await orm.em.getConnection().execute(SWEEP, [], 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
