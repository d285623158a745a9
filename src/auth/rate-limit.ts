import type { Request, RequestHandler } from 'express';

/**
 * A fixed-window limiter kept in this process's memory (each server process counts alone): at most
 * `limit` requests per key and minute, then `429` with `Retry-After`. `limit` 0 turns it off.
 */
export function rateLimit(limit: number, keyOf: (req: Request) => string, windowMs = 60_000): RequestHandler {
  const windows = new Map<string, { startedAt: number; count: number }>();
  let lastSweep = Date.now();
  return (req, res, next) => {
    if (limit <= 0) return next();
    const now = Date.now();
    if (now - lastSweep > windowMs) {
      for (const [key, window] of windows) if (now - window.startedAt >= windowMs) windows.delete(key);
      lastSweep = now;
    }
    const key = keyOf(req);
    let window = windows.get(key);
    if (!window || now - window.startedAt >= windowMs) windows.set(key, (window = { startedAt: now, count: 0 }));
    if (++window.count <= limit) return next();
    const retryAfter = Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
    res.status(429).set('Retry-After', String(retryAfter)).json({ message: 'Too Many Attempts.' });
  };
}
