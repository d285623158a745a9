import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Config } from './config.js';

/** Whether a body follows the headers (the test `type-is` and body parsers use). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function answerTimeout(graphql: boolean, res: ServerResponse): void {
  const message = 'The request body stopped arriving; send the request again.';
  const body = graphql ? { errors: [{ message, extensions: { code: 'REQUEST_TIMEOUT' } }] } : { message };
  res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
  res.end(JSON.stringify(body));
}

/**
 * Cuts a request whose body stops arriving for `idleMs`: 408 when no response has started, then the
 * connection closes, so whatever the request held (spooled uploads, upload slots) is released by
 * its 'close' handlers. The socket's inactivity timer does the counting: Node refreshes it for every
 * byte read. Once the body is complete the timer is disarmed, so slow work after it is never cut.
 */
function armBodyIdleTimeout(idleMs: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req) || req.complete) return;
    const socket = req.socket;
    // Read now: routers rewrite `req.url` while they handle the request.
    const graphql = req.url?.startsWith('/graphql') ?? false;
    socket.setTimeout(idleMs);
    // Node emits a socket's timeout on the response in flight; a listener there keeps Node from destroying the socket itself.
    res.on('timeout', () => {
      if (req.complete || res.writableFinished) {
        socket.setTimeout(0);
        return;
      }
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      answerTimeout(graphql, res);
      res.once('finish', () => socket.destroy());
    });
  };
}

const KEEP_ALIVE_MS = 65_000;

/**
 * The HTTP server with its timeouts: headers (Node answers 408 itself), a body idle timeout, and
 * keep-alive. Node checks the headers deadline every `connectionsCheckingInterval`, so that runs at
 * a quarter of it; `requestTimeout` (the whole request) stays Node's 300 s, above the headers one.
 */
export function createHttpServer(app: http.RequestListener, { headersMs, bodyIdleMs }: Config['timeouts']): http.Server {
  const server = http.createServer({
    headersTimeout: headersMs,
    requestTimeout: Math.max(300_000, headersMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(headersMs / 4))),
  });
  // Longer than the idle timeout of common proxies (60 s), so the proxy closes an idle connection first and
  // never sends a request into one this server is closing at that moment (a reset the client cannot retry).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('request', armBodyIdleTimeout(bodyIdleMs));
  server.on('request', app);
  return server;
}
