import express, { type RequestHandler } from 'express';

/** How many bodies at the limit may be reserved at once, by default, before further ones are read as express.raw reads them. */
const RESERVABLE_BODIES = 8;

export type RawUploadHandler = RequestHandler & {
  /** Bytes reserved for bodies still arriving. */
  readonly reserved: number;
};

/**
 * `express.raw` for the public upload endpoints, except that a body of known length sent as is (no
 * Content-Encoding, the common case) is copied chunk by chunk, as it arrives, into one buffer of that
 * length. `express.raw` keeps the chunks and joins them when the body ends: one copy of the whole body
 * on the event loop, 110 ms for a 19 MB PDF on a loaded machine (docs/benchmarks.md, session 19). The
 * buffer is allocated untouched, so memory is taken only as bytes arrive. Any other body (compressed,
 * chunked, over the limit, or of another type) goes to `express.raw`, which answers as before.
 * The buffer is reserved on the word of a header, so clients announcing large bodies and sending them
 * slowly could hold many: at most `reservable` bytes (RESERVABLE_BODIES bodies at the limit) are reserved
 * for bodies still arriving; past that a body is read as `express.raw` reads it, holding what has arrived.
 */
export function rawUpload(options: { type: string | string[]; limit: number; reservable?: number }): RawUploadHandler {
  const fallback = express.raw({ type: options.type, limit: options.limit });
  const reservable = options.reservable ?? RESERVABLE_BODIES * options.limit;
  let reserved = 0;
  const handler: RequestHandler = (req, res, next) => {
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    const identity = (req.headers['content-encoding'] ?? 'identity').toLowerCase() === 'identity';
    // A body already read (`!req.readable`) is for express.raw to pass over, as it does.
    const plain = identity && req.readable && Number.isSafeInteger(length) && length > 0 && length <= options.limit && req.is(options.type);
    if (!plain || reserved + length > reservable) return fallback(req, res, next);
    reserved += length;
    const body = Buffer.allocUnsafeSlow(length);
    let received = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      reserved -= length;
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
  return Object.defineProperty(handler, 'reserved', { get: () => reserved }) as RawUploadHandler;
}

/** The error `express.raw` gives for a body it could not read (src/http/error-response.ts answers it with a 400). */
const unreadable = (type: string, message: string) => Object.assign(new Error(message), { status: 400, type });
