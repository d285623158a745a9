import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { requestContext } from '../auth/authenticate.js';
import { DomainError } from '../errors/domain-error.js';
import type { FileRuntime } from './file-runtime.js';

const RETRY_AFTER_SECONDS = 5;

/**
 * Caps the multipart requests one tenant has in flight (UPLOAD_CONCURRENCY_PER_TENANT): mounted after
 * authentication and before the multipart parser of each transport, so a slot is held from the first
 * body byte until the response closes, however it ends. Each server process counts alone.
 */
export function uploadSlots({ settings, uploadsInFlight }: FileRuntime): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const context = requestContext(res);
    // No context: a request that needs no token (the landing page), which uploads nothing.
    if (!context || !req.is('multipart/form-data')) return next();
    const { tenant } = context;
    const held = uploadsInFlight.get(tenant.uuid) ?? 0;
    if (settings.uploadsPerTenant > 0 && held >= settings.uploadsPerTenant) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      const message = `No more than ${settings.uploadsPerTenant} uploads of this tenant may run at once; retry when one has finished.`;
      return next(new DomainError('TOO_MANY_REQUESTS', message));
    }
    uploadsInFlight.set(tenant.uuid, held + 1);
    res.once('close', () => {
      const left = (uploadsInFlight.get(tenant.uuid) ?? 1) - 1;
      if (left > 0) uploadsInFlight.set(tenant.uuid, left);
      else uploadsInFlight.delete(tenant.uuid);
    });
    next();
  };
}
