import { type Request, Router } from 'express';

interface KnownRoute {
  method: string;
  /** The full Express path (`/api/v1/institutions/:uuid`). */
  path: string;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

type Matched = Request & { allowedMethods?: Set<string>; matchedParams?: number };

const paramCount = (path: string) => (path.match(/:\w+/g) ?? []).length;

/**
 * A known path asked with a method it does not have: 405 with `Allow` (Laravel's wording), taken
 * from the routes themselves. Mounted before the routers' 404s; a method the path has passes through.
 */
export function methodNotAllowed(routes: KnownRoute[]): Router {
  const byPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    if (route.method.toLowerCase() === 'get') methods.add('HEAD');
    byPath.set(route.path, methods);
  }
  const router = Router();
  // Several patterns may match one address (`/x/:uuid` and `/x/batch`): the most literal ones decide
  // (`GET /x/batch` is not a read of a record named "batch"); equally literal ones add their methods.
  for (const [path, methods] of byPath)
    router.all(path, (req: Matched, _res, next) => {
      const params = paramCount(path);
      if (req.matchedParams === undefined || params < req.matchedParams) [req.allowedMethods, req.matchedParams] = [new Set(methods), params];
      else if (params === req.matchedParams) req.allowedMethods = new Set([...(req.allowedMethods ?? []), ...methods]);
      next();
    });
  router.use((req: Matched, res, next) => {
    const allowed = req.allowedMethods;
    if (!allowed || allowed.has(req.method)) return next();
    const allow = ORDER.filter((method) => allowed.has(method)).join(', ');
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') return res.status(204).end();
    const route = req.path.replace(/^\/+/, '');
    res.status(405).json({ message: `The ${req.method} method is not supported for route ${route}. Supported methods: ${allow}.` });
  });
  return router;
}
