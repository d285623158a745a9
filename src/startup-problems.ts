import type { Config } from './config.js';

type SystemError = NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };

const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** initdb's refusal when the data directory lies under one the cluster's user may not enter (running as root). */
const CLUSTER_DIR_REFUSED = /initdb: error: could not (?:access|create|change permissions of) directory "([^"]+)": Permission denied/;

/** The error and its causes, outermost first (drivers wrap socket errors). */
function chain(error: unknown): SystemError[] {
  const errors: SystemError[] = [];
  for (let at = error; at instanceof Error && errors.length < 5; at = at.cause) errors.push(at as SystemError);
  return errors;
}

/**
 * Why the service could not start, in one line that says what to do, when the reason lies outside
 * the service (its port, its database); undefined for anything else, which is a bug and keeps its stack.
 */
export function startupProblem(error: unknown, config: Pick<Config, 'port' | 'host' | 'databaseUrl' | 'dataDir'>): string | undefined {
  const setting = config.databaseUrl ? 'DATABASE_URL' : `the embedded PostgreSQL in DATA_DIR=${config.dataDir}`;
  for (const e of chain(error)) {
    if (e.code === 'EADDRINUSE' && e.syscall === 'listen') {
      return `port ${config.port} on ${config.host} is already in use by another program: stop it, or set PORT (and HOST) to a free one`;
    }
    if (e.syscall === 'connect' && e.code && UNREACHABLE.has(e.code)) {
      return `cannot reach the database at ${e.address}:${e.port} (${e.code}): start PostgreSQL there, or correct ${setting}`;
    }
    if (e.code === 'ENOTFOUND' && e.syscall === 'getaddrinfo') return `cannot find the database host "${e.hostname}": correct ${setting}`;
    // PostgreSQL's own refusals: invalid password or authorisation, no such database.
    if (e.code === '28P01' || e.code === '28000') return `the database refused the login of ${setting} (${e.message}): correct its user or password`;
    if (e.code === '3D000') return `the database of ${setting} does not exist (${e.message}): create it, or correct ${setting}`;
    const unreachableDir = CLUSTER_DIR_REFUSED.exec(e.message ?? '')?.[1];
    if (unreachableDir) {
      return `PostgreSQL may not run as root, so the embedded one runs as the user "postgres", which cannot reach ${unreachableDir}: set DATA_DIR to a directory every parent of which that user may enter (e.g. chmod o+x on them), or run as another user`;
    }
  }
  return undefined;
}
