import { Router } from 'express';
import { pendingMigrationCount, pingDatabase, type Orm } from '../db/orm.js';
import { describeRoute } from '../http/route-contract.js';
import { errorHeaders } from '../errors/classify.js';

const STATUS = (values: string[]) => ({
  'application/json': { type: 'object', properties: { status: { type: 'string', enum: values } }, required: ['status'] },
});

export const HEALTH_ROUTES = {
  live: describeRoute({
    method: 'get',
    base: '',
    path: '/healthz',
    tag: 'health',
    summary: 'The process answers',
    responses: { 200: { description: 'Up.', content: STATUS(['ok']) } },
  }),
  ready: describeRoute({
    method: 'get',
    base: '',
    path: '/readyz',
    tag: 'health',
    summary: 'The database answers and every migration is applied',
    responses: {
      200: { description: 'Ready.', content: STATUS(['ready']) },
      503: {
        description: 'Migrations pending (`pending_migrations`) or the database unreachable; `Retry-After` says when to ask again.',
        content: STATUS(['migrating', 'unavailable']),
      },
    },
  }),
};

/** /healthz: the process answers. /readyz: the database answers and every migration is applied. */
export function healthRoutes(orm: Orm): Router {
  const router = Router();
  router.get(HEALTH_ROUTES.live.path, (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(HEALTH_ROUTES.ready.path, async (_req, res) => {
    try {
      await pingDatabase(orm);
      const pending = await pendingMigrationCount(orm);
      if (pending === 0) return void res.json({ status: 'ready' });
      res.set(errorHeaders('SERVICE_UNAVAILABLE', 'none'));
      res.status(503).json({ status: 'migrating', pending_migrations: pending });
    } catch {
      res.set(errorHeaders('SERVICE_UNAVAILABLE', 'none'));
      res.status(503).json({ status: 'unavailable', message: 'The database is not reachable.' });
    }
  });
  return router;
}
