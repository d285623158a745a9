import type { Request } from 'express';
import { createPublicContext, type PublicContext, type ServiceRuntime } from '../context/request-context.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { publicJobOwner } from '../rate-limits/worker-time-limit.js';

/** Builds the context of a request that carries no token (downloads, verification, public pages). */
export type PublicContextOf = (req: Request) => PublicContext;

export function publicContexts(orm: Orm, runtime: ServiceRuntime, publicBaseUrl: string): PublicContextOf {
  return (req) =>
    createPublicContext(orm.em, runtime, {
      requestId: String(req.id),
      logger: (req as Request & { log: Logger }).log,
      publicBaseUrl,
      jobOwner: publicJobOwner(req),
    });
}
