import type { Logger } from '../logger.js';
import type { RequestRecord } from './request-record.js';

/** Probes run every few seconds; at info they would drown the requests people made. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

function levelOf(record: RequestRecord): 'debug' | 'info' | 'warn' | 'error' {
  if (PROBES.has(record.route)) return 'debug';
  if (record.status >= 500) return 'error';
  // A GraphQL answer with errors is a 200, but not a success.
  if (record.status >= 400 || record.errorCodes.length > 0 || record.aborted) return 'warn';
  return 'info';
}

/** One line a request: no headers, no path or query string, no body (they may carry personal data). */
export function logRequest(logger: Logger, record: RequestRecord): void {
  const { requestId, method, route, status, tenant, clientId, operation, errorCodes, aborted } = record;
  const line = {
    requestId,
    method,
    route,
    status,
    durationMs: Math.round(record.durationMs * 10) / 10,
    tenant,
    clientId,
    operation,
    errors: errorCodes.length > 0 ? errorCodes : undefined,
    aborted: aborted || undefined,
  };
  logger[levelOf(record)](line, `${method} ${route}${operation ? ` ${operation}` : ''} ${aborted ? 'aborted' : status}`);
}
