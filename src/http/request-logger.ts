import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';

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
 * made on first use: most requests log nothing but their one request line (request-log.ts).
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
