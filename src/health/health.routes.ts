import { Router } from 'express';
import { pendingMigrationCount, type Orm } from '../db/orm.js';

/** /healthz: the process answers. /readyz: the database answers and every migration is applied. */
export function healthRoutes(orm: Orm): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await orm.em.getConnection().execute('select 1');
      const pending = await pendingMigrationCount(orm);
      if (pending > 0) res.status(503).json({ status: 'migrating', pending_migrations: pending });
      else res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable', message: 'The database is not reachable.' });
    }
  });
  return router;
}
