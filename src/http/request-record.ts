import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../context/request-context.js';
import type { Logger } from '../logger.js';

/*
 * A request's identity and record: its id and logger (`requestLogger`), the notes the layers below add
 * (operation, error codes), and once answered one record for metrics and one log line (`logRequest`).
 */

/** What the layers below the router learn about a request while answering it. */
interface RequestNotes {
  /** The GraphQL operation name (`anonymous` when the document names none). */
  operation?: string;
  /** Error codes the answer carried: GraphQL `extensions.code`s, or the REST error's code. */
  errorCodes: string[];
}

/**
 * One answered request, as logs and metrics see it: the route template (never the path or query
 * string, which may carry names and e-mail addresses), the outcome, and who asked.
 */
export interface RequestRecord {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  tenant?: string;
  clientId?: string;
  operation?: string;
  errorCodes: string[];
  /** The client went away before the answer was complete. */
  aborted: boolean;
}

const NOTES = Symbol('request notes');
type Noted = { [NOTES]?: RequestNotes };

function notesOf(res: Response): RequestNotes {
  return ((res.locals as Noted)[NOTES] ??= { errorCodes: [] });
}

/**
 * The request's context, carrying its notes so GraphQL plugins (which see only the context) can add
 * to them. A property, not a WeakMap entry: Apollo hands plugins a shallow copy of the context.
 */
export function linkNotes(context: RequestContext, res: Response): RequestContext {
  (context as Noted)[NOTES] = notesOf(res);
  return context;
}

/** The notes of a response, or of a context linked by `linkNotes`. */
function notesFor(target: Response | object): RequestNotes | undefined {
  return (target as Noted)[NOTES] ?? ('locals' in target ? notesOf(target as Response) : undefined);
}

export function noteOperation(target: Response | object, name: string): void {
  const notes = notesFor(target);
  if (notes) notes.operation = name;
}

export function noteErrorCodes(target: Response | object, codes: string[]): void {
  notesFor(target)?.errorCodes.push(...codes);
}

/**
 * `/api/v1/certificates/:uuid`; the mount path (`/graphql`) when middleware answered; `unmatched` when
 * nothing did. The templates are a bounded set, as metric labels must be.
 */
function routeTemplate(req: Request): string {
  const path = (req.route as { path?: string | string[] } | undefined)?.path;
  if (path === undefined) return req.baseUrl || 'unmatched';
  // A collection's own path is `/` inside the router mounted at the collection's prefix.
  if (path === '/' && req.baseUrl) return req.baseUrl;
  return `${req.baseUrl}${Array.isArray(path) ? path.join('|') : path}`;
}

/** Calls `observer` once per request, when its answer is complete or the client went away. */
export function recordRequests(observer: (record: RequestRecord) => void): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    let done = false;
    const record = () => {
      if (done) return;
      done = true;
      const notes = notesOf(res);
      const principal = (res.locals.context as RequestContext | undefined)?.principal;
      observer({
        requestId: String(req.id),
        method: req.method,
        route: routeTemplate(req),
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        tenant: principal?.tenant.identifier,
        clientId: principal?.clientId,
        operation: notes.operation,
        errorCodes: [...new Set(notes.errorCodes)],
        aborted: !res.writableFinished,
      });
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the client's `X-Request-Id` when well formed, else a new uuid. */
    id: string;
    /** A logger whose every line carries the request id. */
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Names every request (`req.id`, echoed as `X-Request-Id`) and gives it `req.log`. The child logger
 * binds the id only (never the URL, headers or query string, which may carry personal data) and is
 * made on first use: most requests log nothing but their one request line (`logRequest`).
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    const id = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { get: () => (child ??= logger.child({ requestId: id })), configurable: true });
    next();
  };
}

/** Probes run every few seconds; at info they would drown the requests people made. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

function levelOf(record: RequestRecord): 'debug' | 'info' | 'warn' | 'error' {
  if (PROBES.has(record.route)) return 'debug';
  if (record.status >= 500) return 'error';
  // A GraphQL answer with errors is a 200, but not a success.
  if (record.status >= 400 || record.errorCodes.length > 0 || record.aborted) return 'warn';
  return 'info';
}

/** One line a request: no headers, no path or query string, no body (they may carry personal data). */
export function logRequest(logger: Logger, record: RequestRecord): void {
  const { requestId, method, route, status, tenant, clientId, operation, errorCodes, aborted } = record;
  const line = {
    requestId,
    method,
    route,
    status,
    durationMs: Math.round(record.durationMs * 10) / 10,
    tenant,
    clientId,
    operation,
    errors: errorCodes.length > 0 ? errorCodes : undefined,
    aborted: aborted || undefined,
  };
  logger[levelOf(record)](line, `${method} ${route}${operation ? ` ${operation}` : ''} ${aborted ? 'aborted' : status}`);
}
