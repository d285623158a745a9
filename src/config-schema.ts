import { isIP } from 'node:net';
import { z } from 'zod';
import { parseKeyEncryptionKey } from './security/key-envelope.js';
import { ANCHOR_NETWORKS } from './anchoring/networks.js';

/*
 * Every environment variable the service reads, one line each, parsed with zod. docs/configuration.md's
 * configuration table lists exactly these names (test/config.test.ts). Values arrive as strings; an
 * empty string counts as unset. Secrets are never echoed back in a message.
 */

const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

/** A whole number in [min, max], given as decimal digits. */
function whole(min = 0, max = MAX_INTEGER) {
  const range = max === MAX_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
  return z.string().transform((raw, ctx) => {
    const value = /^\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (value >= min && value <= max) return value;
    ctx.addIssue({ code: 'custom', message: `must be ${range}, got "${raw}"` });
    return z.NEVER;
  });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.string().transform((raw, ctx): T[number] => {
    if ((values as readonly string[]).includes(raw)) return raw as T[number];
    ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}; got "${raw}"` });
    return z.NEVER;
  });
}

/** An absolute URL with one of `protocols`; `secret` URLs (credentials inside) are not echoed. */
function url(protocols: string[], example: string, { secret = false } = {}) {
  return z.string().transform((raw, ctx) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw);
    } catch {
      parsed = undefined;
    }
    if (parsed && protocols.includes(parsed.protocol) && parsed.hostname !== '') return raw;
    const shown = secret ? '' : `, got "${raw}"`;
    ctx.addIssue({ code: 'custom', message: `must be a URL like ${example}${shown}` });
    return z.NEVER;
  });
}

/** The origin links are built from: http(s), no query or fragment; a trailing slash is dropped. */
const publicBaseUrl = url(['http:', 'https:'], 'https://credentials.example.edu').transform((raw, ctx) => {
  const parsed = new URL(raw);
  if (parsed.search || parsed.hash) {
    ctx.addIssue({ code: 'custom', message: `must have no query or fragment, got "${raw}"` });
    return z.NEVER;
  }
  return raw.replace(/\/+$/, '');
});

/** A size as Express's body parser reads it: bytes, or a number with b/kb/mb/gb. */
const byteSize = z.string().refine((raw) => /^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i.test(raw), {
  error: (issue) => `must be a size like 100kb, 1mb or 1048576, got "${String(issue.input)}"`,
});

const onOff = (fallback: 'on' | 'off') =>
  oneOf(['on', 'off'] as const)
    .default(fallback)
    .transform((value) => value === 'on');

function keyEncryptionKey() {
  return z.string().transform((raw, ctx) => {
    try {
      return parseKeyEncryptionKey(raw);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });
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
const trustProxy = z.string().transform((raw, ctx): false | number | string[] => {
  const value = raw.trim();
  if (value === '' || value === 'off' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.every(isProxyAddress)) return entries;
  ctx.addIssue({
    code: 'custom',
    message: `must be off, a hop count, or a comma-separated list of addresses, CIDRs, loopback, linklocal or uniquelocal; got "${raw}"`,
  });
  return z.NEVER;
});

/** `*`, or comma-separated origins (`https://app.example.org`): scheme, host and port, nothing else. */
const corsOrigins = z.string().transform((raw, ctx): '*' | string[] => {
  const value = raw.trim();
  if (value === '*') return '*';
  const origins = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = origins.filter((origin) => {
    try {
      return new URL(origin).origin !== origin;
    } catch {
      return true;
    }
  });
  if (wrong.length === 0) return origins;
  ctx.addIssue({ code: 'custom', message: `must be * or comma-separated origins like https://app.example.org; not an origin: ${wrong.join(', ')}` });
  return z.NEVER;
});

const text = z.string();
const trueFalse = oneOf(['true', 'false'] as const);
const host = z.string().regex(/^[A-Za-z0-9.:_-]+$/, { message: 'must be an address or host name such as 0.0.0.0 or ::' });

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The environment, one variable a line. Add a variable here, in `Config` and in docs/configuration.md. */
export const ENVIRONMENT = z.object({
  NODE_ENV: oneOf(NODE_ENVS).default('development'),
  PORT: whole(0, 65535).default(4000),
  HOST: host.default('0.0.0.0'),
  DATABASE_URL: url(['postgres:', 'postgresql:'], 'postgres://user:password@host:5432/database', { secret: true }).optional(),
  DATABASE_MIGRATION_URL: url(['postgres:', 'postgresql:'], 'postgres://owner:password@host:5432/database', { secret: true }).optional(),
  DATABASE_REPLICA_URL: url(['postgres:', 'postgresql:'], 'postgres://user:password@replica:5432/database', { secret: true }).optional(),
  REPLICA_MAX_LAG_SECONDS: whole(0, 3600).default(5),
  DATABASE_POOLER: oneOf(['none', 'transaction'] as const).default('none'),
  DATABASE_DIRECT_URL: url(['postgres:', 'postgresql:'], 'postgres://user:password@host:5432/database', { secret: true }).optional(),
  DATA_DIR: text.default('.data'),
  PUBLIC_BASE_URL: publicBaseUrl.optional(),
  LOG_LEVEL: oneOf(LOG_LEVELS).optional(),
  SEED_TENANT: text.optional(),
  SEED_CLIENT_ID: text.optional(),
  SEED_CLIENT_SECRET: text.optional(),
  SMTP_URL: url(['smtp:', 'smtps:'], 'smtp://host:port or smtps://user:pass@host:port', { secret: true }).optional(),
  MAIL_FROM: text.default('Credentials <no-reply@localhost>'),
  NOTIFICATION_WORKER: onOff('on'),
  NOTIFICATION_POLL_MS: whole(1).default(1000),
  NOTIFICATION_LEASE_MS: whole(1).default(300_000),
  EXPIRY_SWEEP_MS: whole().default(60_000),
  JOB_WORKER: onOff('on'),
  IDEMPOTENCY_SWEEP_MS: whole().default(600_000),
  TOKEN_TTL_SECONDS: whole(1).default(43200),
  TOKEN_PURGE_MS: whole().default(3_600_000),
  TOKEN_PURGE_GRACE_SECONDS: whole().default(86_400),
  WALLET_PURGE_MS: whole().default(600_000),
  WALLET_PURGE_GRACE_SECONDS: whole().default(2_592_000),
  RATE_LIMIT_API_PER_MINUTE: whole().default(600),
  RATE_LIMIT_PUBLIC_PER_MINUTE: whole().default(120),
  RATE_LIMIT_VERIFY_PER_MINUTE: whole().default(30),
  RATE_LIMIT_PUBLIC_WORKER_MS_PER_MINUTE: whole().default(10_000),
  RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: whole().default(64 * 1024 * 1024),
  TOKEN_RATE_LIMIT: whole().default(120),
  TOKEN_FAILURE_LIMIT: whole().default(10),
  TOKEN_ADDRESS_FAILURE_LIMIT: whole().default(30),
  TOKEN_CLIENT_LIMIT: whole().default(30),
  TRUST_PROXY: trustProxy.default(false),
  JSON_BODY_LIMIT: byteSize.default('1mb'),
  JSON_MAX_DEPTH: whole(1).default(64),
  GRAPHQL_MAX_DEPTH: whole(1).default(10),
  GRAPHQL_MAX_COST: whole(1).default(50_000),
  RESPONSE_MAX_BYTES: whole(1).default(8 * 1024 * 1024),
  RESPONSE_BYTES_IN_FLIGHT_PER_TENANT: whole(1).default(16 * 1024 * 1024),
  REQUESTS_IN_FLIGHT_PER_TENANT: whole().default(8),
  GRAPHQL_JIT_AFTER_RUNS: whole().default(2),
  // A file's size is stored as a 32-bit integer, so the limit stays below 2 GiB.
  UPLOAD_MAX_FILE_BYTES: whole(1, 2 ** 31 - 1).default(20 * 1024 * 1024),
  UPLOAD_MAX_FILES: whole().default(20),
  FILE_STORAGE: oneOf(['postgres', 'filesystem', 's3'] as const).default('postgres'),
  // Object storage (docs/deploy.md); the driver exists whenever S3_BUCKET is set, so files:migrate can reach it.
  S3_ENDPOINT: url(['http:', 'https:'], 'https://s3.eu-central-1.amazonaws.com').optional(),
  S3_REGION: text.default('us-east-1'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens' })
    .optional(),
  S3_ACCESS_KEY_ID: text.optional(),
  S3_SECRET_ACCESS_KEY: text.optional(),
  S3_FORCE_PATH_STYLE: trueFalse.default('false').transform((value) => value === 'true'),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]*$/, { message: "must be a key prefix of letters, digits and !_.*'()/-" })
    .optional(),
  S3_PRESIGNED_DOWNLOADS: trueFalse.default('false').transform((value) => value === 'true'),
  SHUTDOWN_GRACE_MS: whole().default(10_000),
  EMBEDDED_DB_RESTART_ATTEMPTS: whole(1).default(8),
  HTTP_HEADERS_TIMEOUT_MS: whole(1).default(20_000),
  HTTP_BODY_IDLE_TIMEOUT_MS: whole(1).default(30_000),
  DB_POOL_MAX: whole(1).default(20),
  DB_POOL_ACQUIRE_TIMEOUT_MS: whole(1).default(10_000),
  DB_STATEMENT_TIMEOUT_MS: whole().default(30_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: whole().default(60_000),
  UPLOAD_BYTES_IN_FLIGHT_PER_TENANT: whole().default(64 * 1024 * 1024),
  UPLOAD_BYTES_IN_FLIGHT: whole().default(256 * 1024 * 1024),
  UPLOAD_QUEUE_WAIT_MS: whole().default(3_000),
  STORAGE_QUOTA_BYTES: whole().default(1024 ** 3),
  FILE_PURGE_GRACE_MS: whole().default(7 * 24 * 3_600_000),
  FILE_PURGE_SWEEP_MS: whole().default(3_600_000),
  KEY_ENCRYPTION_KEY: keyEncryptionKey().optional(),
  NEW_KEY_ENCRYPTION_KEY: keyEncryptionKey().optional(),
  SIGNING_P12_PASSPHRASE: text.optional(),
  PDF_WORKERS: whole(1).optional(),
  PDF_JOB_TIMEOUT_MS: whole(1).default(10_000),
  PDF_INSPECT_TIMEOUT_MS: whole(1).default(2_000),
  PDF_WORKER_HEAP_MB: whole(1).default(512),
  PDF_QUEUE_LIMIT: whole().default(32),
  PDF_WORKER_MAX_JOBS: whole(1).default(10_000),
  PUBLIC_WORKERS: whole(1).optional(),
  PUBLIC_WORKER_NICE: whole(0, 19).default(19),
  WORKER_IDLE_MS: whole().default(30_000),
  VERIFY_MAX_BYTES: whole(1).default(20 * 1024 * 1024),
  BADGE_UNBAKE_MAX_BYTES: whole(1).default(2 * 1024 * 1024),
  BADGE_VERIFY_TIMEOUT_MS: whole(1).default(2_000),
  METRICS_TOKEN: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
  CORS_ORIGINS: corsOrigins.default([]),
  // Unset: allowed outside production only (config.ts).
  WEBHOOK_ALLOW_PRIVATE: oneOf(['true', 'false', 'on', 'off'] as const)
    .transform((value) => value === 'true' || value === 'on')
    .optional(),
  WEBHOOK_TIMEOUT_MS: whole(1, 60_000).default(10_000),
  WEBHOOK_MAX_ATTEMPTS: whole(1).default(12),
  WEBHOOK_BACKOFF_BASE_SECONDS: whole(1).default(60),
  WEBHOOK_BACKOFF_MAX_SECONDS: whole(1).default(8 * 3600),
  WEBHOOK_MAX_ENDPOINTS_PER_TENANT: whole(1, 10_000).default(20),
  WEBHOOK_CONCURRENCY: whole(1, 1000).default(32),
  WEBHOOK_TENANT_CONCURRENCY: whole(1, 1000).default(8),
  WEBHOOK_DISABLE_AFTER_HOURS: whole(1, 24 * 365).default(120),
  WEBHOOK_NOTICE_EMAIL: z.email({ message: 'must be an e-mail address' }).optional(),
  ANCHOR_RPC_URL: z
    .literal('embedded')
    .or(url(['http:', 'https:'], 'https://sepolia.infura.io/v3/<key>, or embedded', { secret: true }))
    .optional(),
  ANCHOR_NETWORK: oneOf(ANCHOR_NETWORKS).default('sepolia'),
  ANCHOR_PRIVATE_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, { message: 'must be 32 bytes as 64 hex digits (0x optional)' })
    .optional(),
  ANCHOR_CONFIRMATIONS: whole(1, 1000).optional(),
  ANCHOR_INTERVAL_SECONDS: whole(1).default(60),
  ANCHOR_MAX_BATCH: whole(1, 1_000_000).default(10_000),
  ANCHOR_TX_URL_TEMPLATE: z
    .string()
    .regex(/^https?:\/\/\S*\{hash\}\S*$/, { message: 'must be an http(s) URL containing {hash}' })
    .optional(),
});

export type Environment = z.infer<typeof ENVIRONMENT>;
export type VariableName = keyof typeof ENVIRONMENT.shape;
export const VARIABLE_NAMES = Object.keys(ENVIRONMENT.shape) as VariableName[];

/** Rules across variables, on the raw values (so they are reported together with every other problem). */
export function combinationProblems(raw: Partial<Record<VariableName, string>>): string[] {
  const problems: string[] = [];
  const seed = [raw.SEED_TENANT, raw.SEED_CLIENT_ID, raw.SEED_CLIENT_SECRET].filter(Boolean).length;
  if (seed !== 0 && seed !== 3) problems.push('SEED_TENANT, SEED_CLIENT_ID and SEED_CLIENT_SECRET must be set together');
  if (raw.FILE_STORAGE === 's3' && !raw.S3_BUCKET) problems.push('S3_BUCKET must be set when FILE_STORAGE=s3 (see docs/deploy.md)');
  if (Boolean(raw.S3_ACCESS_KEY_ID) !== Boolean(raw.S3_SECRET_ACCESS_KEY)) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  if (raw.DATABASE_REPLICA_URL && !raw.DATABASE_URL) problems.push('DATABASE_REPLICA_URL needs DATABASE_URL: the embedded PostgreSQL has no replica');
  if (raw.DATABASE_POOLER === 'transaction' && !raw.DATABASE_DIRECT_URL)
    problems.push(
      'DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: LISTEN and the job queue need a connection that bypasses the pooler (see docs/deploy.md)',
    );
  if (raw.NODE_ENV === 'production') {
    if (!raw.KEY_ENCRYPTION_KEY) {
      problems.push('KEY_ENCRYPTION_KEY must be set in production: 32 random bytes as base64 or hex (e.g. `openssl rand -base64 32`)');
    }
    if (!raw.PUBLIC_BASE_URL) {
      problems.push('PUBLIC_BASE_URL must be set in production: the public origin written into verification links, signed PDFs and e-mails');
    }
  }
  return problems;
}
