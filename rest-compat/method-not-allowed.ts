import { type RequestHandler, Router } from 'express';
import { sendError } from '../src/http/error-response.js';

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const paramCount = (path: string) => (path.match(/:\w+/g) ?? []).length;

/**
 * Paths in the order a router must try them: the more literal first, so `/x/batch` answers for its
 * own methods (or 405) before `/x/:uuid` could take "batch" for a uuid.
 */
export function mostLiteralFirst<T extends { path: string }>(routes: T[]): T[] {
  return [...routes].sort((a, b) => paramCount(a.path) - paramCount(b.path));
}

/**
 * The last handler of a path: its other methods answer 405 with `Allow` (Laravel's wording), a
 * plain OPTIONS 204 with `Allow`. Mounted after the path's own methods, before anything asks for a token.
 */
export function notAllowed(methods: Iterable<string>): RequestHandler {
  const allowed = new Set([...methods].map((method) => method.toUpperCase()));
  if (allowed.has('GET')) allowed.add('HEAD');
  const allow = ORDER.filter((method) => allowed.has(method)).join(', ');
  return (req, res, next) => {
    // An allowed method that got here was passed on by its handler (nothing there): the 404 answers it.
    if (allowed.has(req.method)) return next();
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    const route = req.originalUrl.split('?', 1)[0]!.replace(/^\/+/, '');
    sendError(res, { code: 'METHOD_NOT_ALLOWED', message: `The ${req.method} method is not supported for route ${route}. Supported methods: ${allow}.` });
  };
}

/** 405 answers for routes registered elsewhere (the hand-written ones), to mount right after their routers. */
export function otherMethodsOf(routes: { method: string; path: string }[]): Router {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
  const router = Router();
  for (const { path } of mostLiteralFirst([...byPath.keys()].map((path) => ({ path })))) router.all(path, notAllowed(byPath.get(path)!));
  return router;
}
