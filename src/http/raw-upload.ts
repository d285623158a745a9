import express, { type RequestHandler } from 'express';

/**
 * `express.raw` for the public upload endpoints, except that a body of known length sent as is (no
 * Content-Encoding, the common case) is copied chunk by chunk, as it arrives, into one buffer of that
 * length. `express.raw` keeps the chunks and joins them when the body ends: one copy of the whole body
 * on the event loop, 110 ms for a 19 MB PDF on a loaded machine (docs/benchmarks.md, session 19). The
 * buffer is allocated untouched, so memory is taken only as bytes arrive. Any other body (compressed,
 * chunked, over the limit, or of another type) goes to `express.raw`, which answers as before.
 */
export function rawUpload(options: { type: string | string[]; limit: number }): RequestHandler {
  const fallback = express.raw(options);
  return (req, res, next) => {
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    const identity = (req.headers['content-encoding'] ?? 'identity').toLowerCase() === 'identity';
    // A body already read (`!req.readable`) is for express.raw to pass over, as it does.
    const plain = identity && req.readable && Number.isSafeInteger(length) && length > 0 && length <= options.limit && req.is(options.type);
    if (!plain) return fallback(req, res, next);
    const body = Buffer.allocUnsafeSlow(length);
    let received = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (error) return next(error);
      req.body = body;
      next();
    };
    // Node's parser reads no more than Content-Length bytes as this request's body.
    const onData = (chunk: Buffer) => {
      chunk.copy(body, received);
      received += chunk.length;
    };
    const onEnd = () => settle(received === length ? undefined : unreadable('request.size.invalid', 'request size did not match content length'));
    const onClose = () => settle(unreadable('request.aborted', 'request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  };
}

/** The error `express.raw` gives for a body it could not read (src/http/error-response.ts answers it with a 400). */
const unreadable = (type: string, message: string) => Object.assign(new Error(message), { status: 400, type });
