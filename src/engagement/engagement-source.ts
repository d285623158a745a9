import type { Request } from 'express';
import type { PublicContext } from '../context/request-context.js';
import type { EngagementSource } from './engagement-recorder.js';

/** What counting needs of a public request: its EntityManager, its log and its user agent (read, never kept). */
export const engagementSource = (ctx: Pick<PublicContext, 'em' | 'logger'>, req: Request): EngagementSource => ({
  em: ctx.em,
  logger: ctx.logger,
  userAgent: req.get('user-agent'),
});
