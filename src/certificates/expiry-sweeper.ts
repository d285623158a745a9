import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';

// One statement across all tenants: atomic, idempotent, and safe with any number of server processes.
const SWEEP = `update certificates set status = 'expired', updated_at = now()
  where status = 'issued' and expires_at <= now() and deleted_at is null`;

/** Persists `expired` for issued certificates past their expiry (they already read as expired before). */
export async function sweepExpiredCertificates(orm: Orm): Promise<number> {
  const result = await orm.em.getConnection().execute(SWEEP, [], 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}

export interface ExpirySweeper {
  stop(): Promise<void>;
}

export function startExpirySweeper(orm: Orm, intervalMs: number, logger: Logger): ExpirySweeper {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweepExpiredCertificates(orm)
      .then((count) => count > 0 && logger.info({ count }, 'certificates expired'))
      .catch((error) => logger.error({ err: error }, 'expiry sweep failed'));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
