import { timingSafeEqual } from 'node:crypto';
import { Router, type Request } from 'express';
import { sendError } from '../http/error-response.js';
import type { ServiceMetrics } from './service-metrics.js';

function bearerMatches(req: Request, token: string): boolean {
  const given = Buffer.from(req.get('authorization') ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GET /metrics: Prometheus text; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
export function metricsRoute(metrics: ServiceMetrics, token: string | undefined): Router {
  const router = Router();
  router.get('/metrics', async (req, res, next) => {
    if (token !== undefined && !bearerMatches(req, token)) return sendError(res, { code: 'UNAUTHENTICATED', message: 'Unauthenticated.' });
    try {
      const { contentType, body } = await metrics.scrape();
      res.setHeader('Cache-Control', 'no-store').type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
