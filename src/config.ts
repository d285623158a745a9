import os from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseKeyEncryptionKey } from './security/key-envelope.js';

/** Everything the service reads from its environment; the only module that touches process.env. */
export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl?: string;
  /** The owner role migrations run as; DATABASE_URL (the app role) when unset. */
  databaseMigrationUrl?: string;
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
  /** Requests per minute, counted in PostgreSQL so every process shares them; 0 turns a limit off. */
  rateLimits: RateLimitConfig;
  /** Express `trust proxy`: false ignores X-Forwarded-For; else the proxies (addresses/CIDRs) or hop count to trust. */
  trustProxy: false | number | string[];
  /** How often access tokens expired for longer than `tokenPurgeGraceSeconds` are deleted; 0 turns it off. */
  tokenPurgeMs: number;
  tokenPurgeGraceSeconds: number;
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
  /** Timeouts and limits that keep one slow client or one slow query from holding the service (README: Timeouts). */
  timeouts: {
    /** The request line and headers must arrive within this. */
    headersMs: number;
    /** A request body that sends no byte for this long is cut with 408. */
    bodyIdleMs: number;
    /** Waiting for a database connection beyond this answers 503. */
    poolAcquireMs: number;
    /** PostgreSQL `statement_timeout` and `idle_in_transaction_session_timeout` of the service's sessions; 0 = none. */
    statementMs: number;
    idleInTransactionMs: number;
  };
  dbPoolMax: number;
  /** Multipart uploads one tenant may have in flight in this process; 0 = unlimited. */
  uploadConcurrencyPerTenant: number;
  /** Bytes of live files a tenant may hold; 0 = unlimited. */
  storageQuotaBytes: number;
  /** Deleted files' content is purged this long after deletion, by a sweeper every `filePurgeSweepMs` (0 = off). */
  filePurgeGraceMs: number;
  filePurgeSweepMs: number;
  /** KEY_ENCRYPTION_KEY: seals signing keys at rest; required in production. */
  keyEncryptionKey?: Buffer;
  /** NEW_KEY_ENCRYPTION_KEY: the key `keys:rewrap` moves every sealed key to. */
  newKeyEncryptionKey?: Buffer;
  /** Untrusted PDF/CMS work runs in worker threads; see src/documents/worker-pool.ts. */
  pdfWorkers: PdfWorkerConfig;
  /** Largest body POST /api/v1/verify reads (VERIFY_MAX_BYTES); bigger is a 413. */
  verifyMaxBytes: number;
  /** Largest image POST /api/v1/badges/unbake reads (BADGE_UNBAKE_MAX_BYTES); bigger is a 413. */
  badgeUnbakeMaxBytes: number;
  webhooks: WebhookConfig;
}

/** Outbound webhook deliveries (README: Webhooks). */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE (true/false, on/off): may deliveries reach loopback/private/link-local addresses? Default: only outside production. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_MS: one attempt, connect to last byte. */
  timeoutMs: number;
  /** WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF_BASE_SECONDS, WEBHOOK_BACKOFF_MAX_SECONDS. */
  maxAttempts: number;
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
}

function webhooks(env: NodeJS.ProcessEnv): WebhookConfig {
  return {
    allowPrivate: onOff(
      'WEBHOOK_ALLOW_PRIVATE',
      { true: 'on', false: 'off' }[env.WEBHOOK_ALLOW_PRIVATE ?? ''] ?? env.WEBHOOK_ALLOW_PRIVATE,
      environment(env.NODE_ENV) !== 'production',
    ),
    timeoutMs: positive('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000),
    maxAttempts: positive('WEBHOOK_MAX_ATTEMPTS', env.WEBHOOK_MAX_ATTEMPTS, 12),
    baseBackoffSeconds: positive('WEBHOOK_BACKOFF_BASE_SECONDS', env.WEBHOOK_BACKOFF_BASE_SECONDS, 60),
    maxBackoffSeconds: positive('WEBHOOK_BACKOFF_MAX_SECONDS', env.WEBHOOK_BACKOFF_MAX_SECONDS, 8 * 3600),
  };
}

export interface RateLimitConfig {
  /** Authenticated requests (REST and GraphQL) of one client (RATE_LIMIT_API_PER_MINUTE). */
  api: number;
  /** Public reads per address: verification page and JSON, file downloads (RATE_LIMIT_PUBLIC_PER_MINUTE). */
  publicReads: number;
  /** `POST /api/v1/verify` per address (RATE_LIMIT_VERIFY_PER_MINUTE). */
  verify: number;
  token: {
    /** Every token request of one address (TOKEN_RATE_LIMIT). */
    perAddress: number;
    /** Failed attempts for one client id from one address (TOKEN_FAILURE_LIMIT). */
    failuresPerClientAddress: number;
    /** Failed attempts from one address, any client id (TOKEN_ADDRESS_FAILURE_LIMIT). */
    failuresPerAddress: number;
    /** Tokens issued to one client (TOKEN_CLIENT_LIMIT). */
    issuedPerClient: number;
  };
}

export interface PdfWorkerConfig {
  /** Worker threads (PDF_WORKERS). */
  size: number;
  /** Wall-clock limit of one job; the worker is terminated past it (PDF_JOB_TIMEOUT_MS). */
  jobTimeoutMs: number;
  /** The same for inspecting an uploaded PDF at the public POST /api/v1/verify (PDF_INSPECT_TIMEOUT_MS). */
  inspectTimeoutMs: number;
  /** V8 old-generation heap of one worker (PDF_WORKER_HEAP_MB). */
  heapMb: number;
  /** Jobs waiting for a worker before requests are refused with 503 (PDF_QUEUE_LIMIT). */
  queueLimit: number;
  /** Jobs a worker runs before it is replaced (PDF_WORKER_MAX_JOBS). */
  maxJobsPerWorker: number;
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

function atLeastOne(name: string, raw: string | undefined, fallback: number): number {
  const value = integer(name, raw, fallback);
  if (value < 1) throw new ConfigError(`${name} must be at least 1, got "${raw}"`);
  return value;
}

function pdfWorkers(env: NodeJS.ProcessEnv): PdfWorkerConfig {
  return {
    // One core stays with the event loop, so hostile documents cannot slow the answers to everyone else.
    size: atLeastOne('PDF_WORKERS', env.PDF_WORKERS, Math.max(1, os.availableParallelism() - 1)),
    jobTimeoutMs: atLeastOne('PDF_JOB_TIMEOUT_MS', env.PDF_JOB_TIMEOUT_MS, 10_000),
    inspectTimeoutMs: atLeastOne('PDF_INSPECT_TIMEOUT_MS', env.PDF_INSPECT_TIMEOUT_MS, 2_000),
    heapMb: atLeastOne('PDF_WORKER_HEAP_MB', env.PDF_WORKER_HEAP_MB, 512),
    queueLimit: integer('PDF_QUEUE_LIMIT', env.PDF_QUEUE_LIMIT, 32),
    maxJobsPerWorker: atLeastOne('PDF_WORKER_MAX_JOBS', env.PDF_WORKER_MAX_JOBS, 200),
  };
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  // Not echoed: the URL may carry SMTP credentials.
  if (!/^smtps?:\/\/[^/?#]+/i.test(raw)) throw new ConfigError('SMTP_URL must look like smtp://host:port or smtps://user:pass@host:port');
  return raw;
}

function rateLimits(env: NodeJS.ProcessEnv): RateLimitConfig {
  return {
    api: integer('RATE_LIMIT_API_PER_MINUTE', env.RATE_LIMIT_API_PER_MINUTE, 600),
    publicReads: integer('RATE_LIMIT_PUBLIC_PER_MINUTE', env.RATE_LIMIT_PUBLIC_PER_MINUTE, 120),
    verify: integer('RATE_LIMIT_VERIFY_PER_MINUTE', env.RATE_LIMIT_VERIFY_PER_MINUTE, 30),
    token: {
      perAddress: integer('TOKEN_RATE_LIMIT', env.TOKEN_RATE_LIMIT, 120),
      failuresPerClientAddress: integer('TOKEN_FAILURE_LIMIT', env.TOKEN_FAILURE_LIMIT, 10),
      failuresPerAddress: integer('TOKEN_ADDRESS_FAILURE_LIMIT', env.TOKEN_ADDRESS_FAILURE_LIMIT, 30),
      issuedPerClient: integer('TOKEN_CLIENT_LIMIT', env.TOKEN_CLIENT_LIMIT, 30),
    },
  };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) ? Number(prefix) <= (family === 4 ? 32 : 128) : isIP(prefix) === family;
}

/** Unset/off: X-Forwarded-For is ignored. A number: that many proxy hops. Else a list of proxies. */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'off' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.filter((entry) => !isProxyAddress(entry));
  if (wrong.length > 0 || entries.length === 0) {
    throw new ConfigError(
      `TRUST_PROXY must be off, a hop count, or a comma-separated list of addresses, CIDRs, loopback, linklocal or uniquelocal; got "${raw}"`,
    );
  }
  return entries;
}

function keyEncryptionKey(name: string, raw: string | undefined): Buffer | undefined {
  if (!raw) return undefined;
  try {
    return parseKeyEncryptionKey(raw);
  } catch (error) {
    // Not echoed: the value is a secret.
    throw new ConfigError(`${name} ${(error as Error).message}`);
  }
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
  if (environment(env.NODE_ENV) === 'production' && !env.KEY_ENCRYPTION_KEY) {
    throw new ConfigError('KEY_ENCRYPTION_KEY must be set in production: 32 random bytes as base64 or hex (e.g. `openssl rand -base64 32`)');
  }
  return {
    env: environment(env.NODE_ENV),
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseMigrationUrl: env.DATABASE_MIGRATION_URL || undefined,
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
    rateLimits: rateLimits(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    tokenPurgeMs: integer('TOKEN_PURGE_MS', env.TOKEN_PURGE_MS, 3_600_000),
    tokenPurgeGraceSeconds: integer('TOKEN_PURGE_GRACE_SECONDS', env.TOKEN_PURGE_GRACE_SECONDS, 86_400),
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
    timeouts: {
      headersMs: positive('HTTP_HEADERS_TIMEOUT_MS', env.HTTP_HEADERS_TIMEOUT_MS, 20_000),
      bodyIdleMs: positive('HTTP_BODY_IDLE_TIMEOUT_MS', env.HTTP_BODY_IDLE_TIMEOUT_MS, 30_000),
      poolAcquireMs: positive('DB_POOL_ACQUIRE_TIMEOUT_MS', env.DB_POOL_ACQUIRE_TIMEOUT_MS, 10_000),
      statementMs: integer('DB_STATEMENT_TIMEOUT_MS', env.DB_STATEMENT_TIMEOUT_MS, 30_000),
      idleInTransactionMs: integer('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', env.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, 60_000),
    },
    dbPoolMax: positive('DB_POOL_MAX', env.DB_POOL_MAX, 20),
    uploadConcurrencyPerTenant: integer('UPLOAD_CONCURRENCY_PER_TENANT', env.UPLOAD_CONCURRENCY_PER_TENANT, 4),
    storageQuotaBytes: integer('STORAGE_QUOTA_BYTES', env.STORAGE_QUOTA_BYTES, 1024 ** 3),
    filePurgeGraceMs: integer('FILE_PURGE_GRACE_MS', env.FILE_PURGE_GRACE_MS, 7 * 24 * 3_600_000),
    filePurgeSweepMs: integer('FILE_PURGE_SWEEP_MS', env.FILE_PURGE_SWEEP_MS, 3_600_000),
    keyEncryptionKey: keyEncryptionKey('KEY_ENCRYPTION_KEY', env.KEY_ENCRYPTION_KEY),
    newKeyEncryptionKey: keyEncryptionKey('NEW_KEY_ENCRYPTION_KEY', env.NEW_KEY_ENCRYPTION_KEY),
    pdfWorkers: pdfWorkers(env),
    verifyMaxBytes: atLeastOne('VERIFY_MAX_BYTES', env.VERIFY_MAX_BYTES, 20 * 1024 * 1024),
    badgeUnbakeMaxBytes: atLeastOne('BADGE_UNBAKE_MAX_BYTES', env.BADGE_UNBAKE_MAX_BYTES, 2 * 1024 * 1024),
    webhooks: webhooks(env),
  };
}
