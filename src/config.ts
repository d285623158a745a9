import path from 'node:path';

/** Everything the service reads from its environment; the only module that touches process.env. */
export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  publicBaseUrl: string;
  logLevel: string;
  seed?: { tenant: string; clientId: string; clientSecret: string };
  smtpUrl?: string;
  /** Sender of student notifications. */
  mailFrom: string;
  /** Whether this process runs the notification worker (NOTIFICATION_WORKER=off when it runs elsewhere). */
  notificationWorker: boolean;
  notificationPollMs: number;
  /** How often issued certificates past expiry are persisted as expired; 0 turns the sweeper off. */
  expirySweepMs: number;
  /** How long a claimed notification stays reserved for its worker before another may retry it. */
  notificationLeaseMs: number;
  tokenTtlSeconds: number;
  /** Token requests per minute and client address (each server process counts alone); 0 = unlimited. */
  tokenRequestsPerMinute: number;
  jsonBodyLimit: string;
  /** Nesting levels of a JSON body, refused (400) before it is parsed. */
  jsonMaxDepth: number;
  /** GraphQL limits: selection depth, cost in rows (cost.ts), response bytes. */
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  graphqlMaxResponseBytes: number;
  /** Uploads: bytes a file and files a request (UPLOAD_MAX_FILE_BYTES, UPLOAD_MAX_FILES). */
  uploadMaxFileBytes: number;
  uploadMaxFiles: number;
  /** Where file content lives: `postgres` (default, API nodes stay stateless) or `filesystem` under `filesDir`. */
  fileStorage: 'postgres' | 'filesystem';
  filesDir: string;
  shutdownGraceMs: number;
}

export class ConfigError extends Error {}

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** A limit of 0 would refuse everything, so limits start at 1. */
function positive(name: string, raw: string | undefined, fallback: number): number {
  const value = integer(name, raw, fallback);
  if (value < 1) throw new ConfigError(`${name} must be at least 1, got "${raw}"`);
  return value;
}

function environment(raw: string | undefined): Config['env'] {
  if (raw === 'production' || raw === 'test') return raw;
  return 'development';
}

function onOff(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new ConfigError(`${name} must be "on" or "off", got "${raw}"`);
}

function fileStorage(raw: string | undefined): Config['fileStorage'] {
  if (raw === undefined || raw === '' || raw === 'postgres') return 'postgres';
  if (raw === 'filesystem') return 'filesystem';
  throw new ConfigError(`FILE_STORAGE must be "postgres" or "filesystem", got "${raw}"`);
}

/** A file's size is stored as a 32-bit integer, so the limit stays below 2 GiB. */
function fileSizeLimit(raw: string | undefined): number {
  const bytes = integer('UPLOAD_MAX_FILE_BYTES', raw, 20 * 1024 * 1024);
  if (bytes < 1 || bytes > 2 ** 31 - 1) throw new ConfigError(`UPLOAD_MAX_FILE_BYTES must be between 1 and ${2 ** 31 - 1}, got "${raw}"`);
  return bytes;
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  // Not echoed: the URL may carry SMTP credentials.
  if (!/^smtps?:\/\/[^/?#]+/i.test(raw)) throw new ConfigError('SMTP_URL must look like smtp://host:port or smtps://user:pass@host:port');
  return raw;
}

function seed(env: NodeJS.ProcessEnv): Config['seed'] {
  const { SEED_TENANT: tenant, SEED_CLIENT_ID: clientId, SEED_CLIENT_SECRET: clientSecret } = env;
  const given = [tenant, clientId, clientSecret].filter(Boolean).length;
  if (given === 0) return undefined;
  if (given !== 3) throw new ConfigError('SEED_TENANT, SEED_CLIENT_ID and SEED_CLIENT_SECRET must be set together');
  return { tenant: tenant!, clientId: clientId!, clientSecret: clientSecret! };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer('PORT', env.PORT, 4000);
  return {
    env: environment(env.NODE_ENV),
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    seed: seed(env),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || 'Credentials <no-reply@localhost>',
    notificationWorker: onOff('NOTIFICATION_WORKER', env.NOTIFICATION_WORKER, true),
    notificationPollMs: integer('NOTIFICATION_POLL_MS', env.NOTIFICATION_POLL_MS, 1000),
    expirySweepMs: integer('EXPIRY_SWEEP_MS', env.EXPIRY_SWEEP_MS, 60_000),
    notificationLeaseMs: integer('NOTIFICATION_LEASE_MS', env.NOTIFICATION_LEASE_MS, 300_000),
    tokenTtlSeconds: integer('TOKEN_TTL_SECONDS', env.TOKEN_TTL_SECONDS, 43200),
    tokenRequestsPerMinute: integer('TOKEN_RATE_LIMIT', env.TOKEN_RATE_LIMIT, 120),
    jsonBodyLimit: env.JSON_BODY_LIMIT || '1mb',
    jsonMaxDepth: positive('JSON_MAX_DEPTH', env.JSON_MAX_DEPTH, 64),
    graphqlMaxDepth: positive('GRAPHQL_MAX_DEPTH', env.GRAPHQL_MAX_DEPTH, 10),
    graphqlMaxCost: positive('GRAPHQL_MAX_COST', env.GRAPHQL_MAX_COST, 50_000),
    graphqlMaxResponseBytes: positive('GRAPHQL_MAX_RESPONSE_BYTES', env.GRAPHQL_MAX_RESPONSE_BYTES, 10 * 1024 * 1024),
    uploadMaxFileBytes: fileSizeLimit(env.UPLOAD_MAX_FILE_BYTES),
    uploadMaxFiles: integer('UPLOAD_MAX_FILES', env.UPLOAD_MAX_FILES, 20),
    fileStorage: fileStorage(env.FILE_STORAGE),
    filesDir: path.join(path.resolve(env.DATA_DIR || '.data'), 'files'),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10000),
  };
}
