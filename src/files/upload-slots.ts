import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { requestContext } from '../auth/authenticate.js';
import { DomainError } from '../errors/domain-error.js';
import type { FileRuntime } from './file-runtime.js';
import type { FullBudget, UploadBudget } from './upload-budget.js';

function inMebibytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}

/** The refusal of an upload that found no room within the queue wait: the tenant's own budget (429) or the server's (503). */
function noRoom(full: FullBudget, budget: UploadBudget, res: Response): DomainError {
  const { perTenantBytes, totalBytes, queueWaitMs } = budget.limits;
  if (full === 'total') return new DomainError('SERVICE_UNAVAILABLE', `Uploads in flight fill this server's ${inMebibytes(totalBytes)}; retry in a moment.`);
  // Having waited the queue wait already, the client waits about as long again before asking.
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(queueWaitMs / 1000))));
  return new DomainError('TOO_MANY_REQUESTS', `This tenant's uploads in flight fill its ${inMebibytes(perTenantBytes)}; retry when one has finished.`);
}

/**
 * Holds the bytes of a tenant's multipart request in the process's UploadBudget (UPLOAD_BYTES_IN_FLIGHT*):
 * mounted after authentication and before the multipart parser of each transport, so the body is
 * not read before its bytes are reserved, and they stay reserved until the response closes, however it
 * ends. Each server process counts alone.
 */
export function uploadSlots({ uploadBudget }: FileRuntime): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const context = requestContext(res);
    // No context: a request that needs no token (the landing page), which uploads nothing.
    if (!context || !req.is('multipart/form-data')) return next();
    const length = req.headers['content-length'];
    const bytes = uploadBudget.reservation(length === undefined ? undefined : Number(length));
    const abandoned = new AbortController();
    res.once('close', () => abandoned.abort());
    uploadBudget.reserve(context.tenant.uuid, bytes, abandoned.signal).then((outcome) => {
      if ('full' in outcome) return abandoned.signal.aborted ? undefined : next(noRoom(outcome.full, uploadBudget, res));
      if (res.closed) return outcome.release();
      res.once('close', outcome.release);
      next();
    }, next);
  };
}
