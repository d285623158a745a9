import { type Request, type RequestHandler, Router } from 'express';
import { sendError } from '../src/http/error-response.js';

interface KnownRoute {
  method: string;
  /** The full Express path (`/api/v1/institutions/:uuid`). */
  path: string;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

type Matched = Request & { allowedMethods?: Set<string>; matchedParams?: number };

const paramCount = (path: string) => (path.match(/:\w+/g) ?? []).length;

/** The literal segments a path starts with, lower-cased: `api/v1/institutions` of `/api/v1/institutions/:uuid`. */
function literalPrefix(path: string): string[] {
  const literal: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (/[:*{}()]/.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return literal;
}

/**
 * A known path asked with a method it does not have: 405 with `Allow` (Laravel's wording), taken
 * from the routes themselves. Mounted before the routers' 404s; a method the path has passes through.
 * Every request passes here, so the routes are grouped by their literal prefix and a request tries
 * only the groups its own path starts with: walking all hundred-odd patterns cost more than the
 * rest of a single-record read's routing.
 */
export function methodNotAllowed(routes: KnownRoute[]): RequestHandler {
  const byPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    if (route.method.toLowerCase() === 'get') methods.add('HEAD');
    byPath.set(route.path, methods);
  }
  const byPrefix = new Map<string, Router>();
  let deepest = 0;
  // Several patterns may match one address (`/x/:uuid` and `/x/batch`): the most literal ones decide
  // (`GET /x/batch` is not a read of a record named "batch"); equally literal ones add their methods.
  for (const [path, methods] of byPath) {
    const prefix = literalPrefix(path);
    deepest = Math.max(deepest, prefix.length);
    const key = prefix.join('/');
    let group = byPrefix.get(key);
    if (!group) byPrefix.set(key, (group = Router()));
    group.all(path, (req: Matched, _res, next) => {
      const params = paramCount(path);
      if (req.matchedParams === undefined || params < req.matchedParams) [req.allowedMethods, req.matchedParams] = [new Set(methods), params];
      else if (params === req.matchedParams) req.allowedMethods = new Set([...(req.allowedMethods ?? []), ...methods]);
      next();
    });
  }
  const answer: RequestHandler = (req: Matched, res, next) => {
    const allowed = req.allowedMethods;
    if (!allowed || allowed.has(req.method)) return next();
    const allow = ORDER.filter((method) => allowed.has(method)).join(', ');
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') return res.status(204).end();
    const route = req.path.replace(/^\/+/, '');
    sendError(res, { code: 'METHOD_NOT_ALLOWED', message: `The ${req.method} method is not supported for route ${route}. Supported methods: ${allow}.` });
  };
  return (req, res, next) => {
    const segments = req.path.toLowerCase().split('/');
    const groups: Router[] = [];
    for (let depth = 0, key = ''; depth <= deepest && depth < segments.length; depth++) {
      if (depth > 0) key = depth === 1 ? segments[1]! : `${key}/${segments[depth]}`;
      const group = byPrefix.get(key);
      if (group) groups.push(group);
    }
    const step = (index: number) => (error?: unknown) => {
      if (error) return next(error);
      if (index === groups.length) return answer(req, res, next);
      groups[index]!(req, res, step(index + 1));
    };
    step(0)();
  };
}
