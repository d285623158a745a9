import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';

// One statement across all tenants: idempotent, so any number of server processes may run it at once.
const PURGE = `delete from oauth_access_tokens where expires_at < now() - make_interval(secs => ?)`;

/** Deletes access tokens that expired more than `graceSeconds` ago; returns how many. */
export async function purgeExpiredTokens(orm: Orm, graceSeconds: number): Promise<number> {
  const result = await orm.em.getConnection().execute(PURGE, [graceSeconds], 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}

export interface TokenSweeper {
  stop(): Promise<void>;
}

export function startTokenSweeper(orm: Orm, options: { intervalMs: number; graceSeconds: number }, logger: Logger): TokenSweeper {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = purgeExpiredTokens(orm, options.graceSeconds)
      .then((count) => count > 0 && logger.info({ count }, 'expired access tokens purged'))
      .catch((error) => logger.error({ err: error }, 'access token purge failed'));
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
