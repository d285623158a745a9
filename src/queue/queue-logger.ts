import { Logger as QueueLogger } from 'graphile-worker';
import type { Logger } from '../logger.js';

/** graphile-worker's log lines through the service's logger (silent when none is given, as for migrations). */
export function queueLogger(logger?: Logger): QueueLogger {
  return new QueueLogger((scope) => (level, message, meta) => {
    if (!logger) return;
    // Its info lines (every job started and completed) are debug detail here; the tasks log what they did.
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    logger[method]({ queue: scope.taskIdentifier, job: scope.jobId, ...meta }, message);
  });
}
