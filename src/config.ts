import os from 'node:os';
import path from 'node:path';
import { combinationProblems, ENVIRONMENT, VARIABLE_NAMES, type Environment, type LogLevel, type VariableName } from './config-schema.js';
import { type AnchorNetwork, EXPLORER_TEMPLATES } from './anchoring/networks.js';

/** Everything the service reads from its environment; the only module that touches process.env. */
export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl?: string;
  /** The owner role migrations run as; DATABASE_URL (the app role) when unset. */
  databaseMigrationUrl?: string;
  /** A streaming replica for public reads (DATABASE_REPLICA_URL) and how far behind it may be before they go to the primary. */
  replica?: { url: string; maxLagSeconds: number };
  /** DATABASE_POOLER=transaction: DATABASE_URL is a transaction-mode pooler; `directUrl` reaches PostgreSQL itself (LISTEN, the job queue, migrations). */
  pooler?: { mode: 'transaction'; directUrl: string };
  dataDir: string;
  /** EMBEDDED_DB_RESTART_ATTEMPTS: failed starts in a row of a stopped embedded PostgreSQL before the process gives up and exits 1. */
  embeddedDbRestartAttempts: number;
  publicBaseUrl: string;
  logLevel: LogLevel;
  seed?: { tenant: string; clientId: string; clientSecret: string };
  smtpUrl?: string;
  /** Sender of student notifications. */
  mailFrom: string;
  /** Whether this process runs the queue's e-mails and webhooks (NOTIFICATION_WORKER=off when `npm run worker` runs them). */
  notificationWorker: boolean;
  notificationPollMs: number;
  /** How often issued certificates past expiry are persisted as expired; 0 turns the sweeper off. */
  expirySweepMs: number;
  /** How long a claimed notification stays reserved for its worker before another may retry it. */
  notificationLeaseMs: number;
  /** Whether this process runs background jobs (long certificate batches) from the job queue. */
  jobWorker: boolean;
  /** How often expired Idempotency-Keys are deleted; 0 turns the sweeper off. */
  idempotencySweepMs: number;
  tokenTtlSeconds: number;
  /** Requests per minute, counted in PostgreSQL so every process shares them; 0 turns a limit off. */
  rateLimits: RateLimitConfig;
  /** Express `trust proxy`: false ignores X-Forwarded-For; else the proxies (addresses/CIDRs) or hop count to trust. */
  trustProxy: false | number | string[];
  /** How often access tokens expired for longer than `tokenPurgeGraceSeconds` are deleted; 0 turns it off. */
  tokenPurgeMs: number;
  tokenPurgeGraceSeconds: number;
  /** How often expired wallet nonces and access tokens, and offers dead for longer than `walletPurgeGraceSeconds`, are deleted; 0 turns it off. */
  walletPurgeMs: number;
  walletPurgeGraceSeconds: number;
  jsonBodyLimit: string;
  /** Nesting levels of a JSON body, refused (400) before it is parsed. */
  jsonMaxDepth: number;
  /** Bytes of one answer, REST or GraphQL (RESPONSE_MAX_BYTES): refused early with 413 / RESPONSE_TOO_LARGE (docs/response-limits.md). */
  responseMaxBytes: number;
  /** Stored bytes of free JSON one tenant's answers may read and write at once, per process (RESPONSE_BYTES_IN_FLIGHT_PER_TENANT); more waits its turn. */
  responseBytesInFlightPerTenant: number;
  /** Authenticated requests of one tenant in progress at once in this process (REQUESTS_IN_FLIGHT_PER_TENANT); 0: no limit. */
  requestsInFlightPerTenant: number;
  /** GraphQL limits: selection depth, cost in rows (cost.ts). */
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  /** Runs after which a client's document executes compiled (graphql-jit); 0: never (GRAPHQL_JIT_AFTER_RUNS). */
  graphqlJitAfterRuns: number;
  /** Uploads: bytes a file and files a request (UPLOAD_MAX_FILE_BYTES, UPLOAD_MAX_FILES). */
  uploadMaxFileBytes: number;
  uploadMaxFiles: number;
  /** Where new file content goes: `postgres` (default), `filesystem` under `filesDir`, or `s3`. */
  fileStorage: 'postgres' | 'filesystem' | 's3';
  filesDir: string;
  /** The object store (S3_*); null when S3_BUCKET is unset. */
  s3: S3Config | null;
  shutdownGraceMs: number;
  /** Timeouts and limits that keep one slow client or one slow query from holding the service (docs/operations.md). */
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
  /** Bytes of multipart uploads in flight in this process, of one tenant and of all (0 = unlimited), and how long one waits for room before a 429. */
  uploadsInFlight: { perTenantBytes: number; totalBytes: number; queueWaitMs: number };
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
  /** Unbaking badge images and verifying Open Badges 3.0 credentials run in their own worker threads. */
  badgeWorkers: WorkerPoolLimits;
  /** Largest body POST /api/v1/verify reads (VERIFY_MAX_BYTES); bigger is a 413. */
  verifyMaxBytes: number;
  /** Largest image POST /api/v1/badges/unbake reads (BADGE_UNBAKE_MAX_BYTES); bigger is a 413. */
  badgeUnbakeMaxBytes: number;
  /** Browser origins the APIs answer cross-origin (CORS_ORIGINS): `*`, or a list; empty = no CORS headers. */
  corsOrigins: '*' | string[];
  webhooks: WebhookConfig;
  /** Blockchain anchoring (docs/anchoring.md); null when ANCHOR_RPC_URL is unset. */
  anchoring: AnchoringConfig | null;
  /** METRICS_TOKEN: when set, GET /metrics demands it as a bearer token. */
  metricsToken?: string;
  /** SIGNING_P12_PASSPHRASE: the CLI's `signing:install` passphrase when none is given. */
  signingP12Passphrase?: string;
}

/** An S3-compatible object store for file content (docs/deploy.md). */
export interface S3Config {
  /** S3_ENDPOINT; unset: AWS's own for the region. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY; unset: the SDK's default chain (instance role, AWS_* variables). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** S3_FORCE_PATH_STYLE: `endpoint/bucket/key` rather than `bucket.endpoint/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
  /** S3_PREFIX: put before every key, e.g. `credentials/`. */
  prefix: string;
  /** S3_PRESIGNED_DOWNLOADS: downloads redirect to a short-lived presigned URL instead of streaming through the service. */
  presignedDownloads: boolean;
}

export interface RateLimitConfig {
  /** Authenticated requests (REST and GraphQL) of one client (RATE_LIMIT_API_PER_MINUTE). */
  api: number;
  /** Public reads per address: verification page and JSON, file downloads (RATE_LIMIT_PUBLIC_PER_MINUTE). */
  publicReads: number;
  /** `POST /api/v1/verify` per address (RATE_LIMIT_VERIFY_PER_MINUTE). */
  verify: number;
  /** Milliseconds of public worker time (verification, unbaking, baking) one address may use a minute (RATE_LIMIT_PUBLIC_WORKER_MS_PER_MINUTE). */
  publicWorkerMs: number;
  /** Bytes of answers one tenant may read a minute, counted from stored sizes (RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE). */
  responseBytes: number;
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

/** Batched Merkle anchoring on an Ethereum-compatible chain (docs/anchoring.md). */
export interface AnchoringConfig {
  /** ANCHOR_RPC_URL: a JSON-RPC endpoint, or `embedded` (a local chain inside the process). */
  rpcUrl: string;
  /** ANCHOR_NETWORK: the Blockcerts network name written into every anchor. */
  network: AnchorNetwork;
  /** ANCHOR_PRIVATE_KEY (hex); unset: a key generated once and sealed in the database. */
  privateKey?: string;
  /** ANCHOR_CONFIRMATIONS: blocks on top of the anchoring one before it is recorded. */
  confirmations: number;
  /** ANCHOR_INTERVAL_SECONDS, in milliseconds: how often a batch is sent (the base of the retry backoff). */
  intervalMs: number;
  /** ANCHOR_MAX_BATCH: certificates in one transaction at most. */
  maxBatch: number;
  /** ANCHOR_TX_URL_TEMPLATE (`{hash}` replaced); null: no link. */
  txUrlTemplate: string | null;
}

/** Outbound webhook deliveries (docs/webhooks.md). */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE (true/false): may deliveries reach loopback/private/link-local addresses? Default: only outside production. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_MS: one attempt, connect to last byte. */
  timeoutMs: number;
  /** WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF_BASE_SECONDS, WEBHOOK_BACKOFF_MAX_SECONDS. */
  maxAttempts: number;
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_TENANT: live endpoints one tenant may have. */
  maxEndpointsPerTenant: number;
  /** WEBHOOK_CONCURRENCY: deliveries one worker process has in flight at most (its global budget). */
  concurrency: number;
  /** WEBHOOK_TENANT_CONCURRENCY: deliveries in flight for one tenant at most, across every process. */
  tenantConcurrency: number;
  /** WEBHOOK_DISABLE_AFTER_HOURS: an endpoint failing every attempt for this long is disabled. */
  disableAfterHours: number;
  /** WEBHOOK_NOTICE_EMAIL: who hears of a disabled endpoint when its tenant has no contact e-mail. */
  noticeEmail?: string;
}

/** A pool of worker threads for work on untrusted input (src/documents/worker-pool.ts). */
export interface WorkerPoolLimits {
  /** Worker threads (PDF_WORKERS). */
  size: number;
  /** Wall-clock limit of one job; the worker is terminated past it (PDF_JOB_TIMEOUT_MS, BADGE_VERIFY_TIMEOUT_MS). */
  jobTimeoutMs: number;
  /** V8 old-generation heap of one worker (PDF_WORKER_HEAP_MB). */
  heapMb: number;
  /** Jobs waiting for a worker before requests are refused with 503 (PDF_QUEUE_LIMIT). */
  queueLimit: number;
  /** Jobs a worker runs before it is replaced (PDF_WORKER_MAX_JOBS). */
  maxJobsPerWorker: number;
  /** A worker idle this long is retired, returning its memory (WORKER_IDLE_MS); 0 or unset keeps it. */
  idleMs?: number;
  /** CPU niceness of the threads, 0 (normal) to 19 (only idle CPU); public pools use PUBLIC_WORKER_NICE. */
  nice?: number;
  /** Most workers one lane (a client address) may hold at once; unset: all of them. Public pools keep one for the other lanes. */
  laneWorkers?: number;
}

export interface PdfWorkerConfig extends WorkerPoolLimits {
  /** The job limit for inspecting an uploaded PDF at the public POST /api/v1/verify (PDF_INSPECT_TIMEOUT_MS). */
  inspectTimeoutMs: number;
  /** The separate pool of public inspections: threads (PUBLIC_WORKERS) and niceness; unset: the tenants' pool's size, normal priority. */
  publicPool?: Pick<WorkerPoolLimits, 'size' | 'nice' | 'laneWorkers'>;
}

/** Every problem of the environment at once; `message` has one line a problem, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }

  /** What an operator reads before the process exits with code 2. */
  report(): string {
    const count = this.problems.length === 1 ? 'a problem' : `${this.problems.length} problems`;
    return [`Configuration has ${count}; nothing was started:`, ...this.problems.map((problem) => `  - ${problem}`)].join('\n');
  }
}

/** The known variables with a value: an empty string counts as unset. */
function given(env: NodeJS.ProcessEnv): Partial<Record<VariableName, string>> {
  return Object.fromEntries(VARIABLE_NAMES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

function parseEnvironment(env: NodeJS.ProcessEnv): Environment {
  const raw = given(env);
  const parsed = ENVIRONMENT.safeParse(raw);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  problems.push(...combinationProblems(raw));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}

/** Reads and checks the whole environment; throws one ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnvironment(env);
  // One core stays with the event loop, so hostile documents cannot slow the answers to everyone else.
  const workers = Math.max(1, os.availableParallelism() - 1);
  // Public work (anyone's uploads and image requests) has pools of its own, niced: it only gets CPU time
  // the event loop and the tenants' issuance leave over.
  // At least two threads by default; in the badge pool one lane (an address) holds at most all but one: a
  // client whose every check runs into the time limit leaves a thread for everyone else's short ones.
  const publicSize = e.PUBLIC_WORKERS ?? e.PDF_WORKERS ?? Math.max(2, workers);
  const publicPool = { size: publicSize, nice: e.PUBLIC_WORKER_NICE };
  const pdfWorkers: PdfWorkerConfig = {
    size: e.PDF_WORKERS ?? workers,
    jobTimeoutMs: e.PDF_JOB_TIMEOUT_MS,
    inspectTimeoutMs: e.PDF_INSPECT_TIMEOUT_MS,
    heapMb: e.PDF_WORKER_HEAP_MB,
    queueLimit: e.PDF_QUEUE_LIMIT,
    maxJobsPerWorker: e.PDF_WORKER_MAX_JOBS,
    idleMs: e.WORKER_IDLE_MS,
    publicPool,
  };
  const dataDir = path.resolve(e.DATA_DIR);
  const seed = e.SEED_TENANT && e.SEED_CLIENT_ID && e.SEED_CLIENT_SECRET;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseMigrationUrl: e.DATABASE_MIGRATION_URL,
    replica: e.DATABASE_REPLICA_URL ? { url: e.DATABASE_REPLICA_URL, maxLagSeconds: e.REPLICA_MAX_LAG_SECONDS } : undefined,
    pooler: e.DATABASE_POOLER === 'transaction' ? { mode: 'transaction', directUrl: e.DATABASE_DIRECT_URL! } : undefined,
    dataDir,
    embeddedDbRestartAttempts: e.EMBEDDED_DB_RESTART_ATTEMPTS,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`,
    logLevel: e.LOG_LEVEL ?? (e.NODE_ENV === 'test' ? 'silent' : 'info'),
    seed: seed ? { tenant: e.SEED_TENANT!, clientId: e.SEED_CLIENT_ID!, clientSecret: e.SEED_CLIENT_SECRET! } : undefined,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    notificationWorker: e.NOTIFICATION_WORKER,
    notificationPollMs: e.NOTIFICATION_POLL_MS,
    expirySweepMs: e.EXPIRY_SWEEP_MS,
    notificationLeaseMs: e.NOTIFICATION_LEASE_MS,
    jobWorker: e.JOB_WORKER,
    idempotencySweepMs: e.IDEMPOTENCY_SWEEP_MS,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    rateLimits: {
      api: e.RATE_LIMIT_API_PER_MINUTE,
      publicReads: e.RATE_LIMIT_PUBLIC_PER_MINUTE,
      verify: e.RATE_LIMIT_VERIFY_PER_MINUTE,
      publicWorkerMs: e.RATE_LIMIT_PUBLIC_WORKER_MS_PER_MINUTE,
      responseBytes: e.RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE,
      token: {
        perAddress: e.TOKEN_RATE_LIMIT,
        failuresPerClientAddress: e.TOKEN_FAILURE_LIMIT,
        failuresPerAddress: e.TOKEN_ADDRESS_FAILURE_LIMIT,
        issuedPerClient: e.TOKEN_CLIENT_LIMIT,
      },
    },
    trustProxy: e.TRUST_PROXY,
    tokenPurgeMs: e.TOKEN_PURGE_MS,
    tokenPurgeGraceSeconds: e.TOKEN_PURGE_GRACE_SECONDS,
    walletPurgeMs: e.WALLET_PURGE_MS,
    walletPurgeGraceSeconds: e.WALLET_PURGE_GRACE_SECONDS,
    jsonBodyLimit: e.JSON_BODY_LIMIT,
    jsonMaxDepth: e.JSON_MAX_DEPTH,
    responseMaxBytes: e.RESPONSE_MAX_BYTES,
    responseBytesInFlightPerTenant: e.RESPONSE_BYTES_IN_FLIGHT_PER_TENANT,
    requestsInFlightPerTenant: e.REQUESTS_IN_FLIGHT_PER_TENANT,
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlMaxCost: e.GRAPHQL_MAX_COST,
    graphqlJitAfterRuns: e.GRAPHQL_JIT_AFTER_RUNS,
    uploadMaxFileBytes: e.UPLOAD_MAX_FILE_BYTES,
    uploadMaxFiles: e.UPLOAD_MAX_FILES,
    fileStorage: e.FILE_STORAGE,
    filesDir: path.join(dataDir, 'files'),
    s3: e.S3_BUCKET
      ? {
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          bucket: e.S3_BUCKET,
          credentials: e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY } : undefined,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
          prefix: e.S3_PREFIX ?? '',
          presignedDownloads: e.S3_PRESIGNED_DOWNLOADS,
        }
      : null,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    timeouts: {
      headersMs: e.HTTP_HEADERS_TIMEOUT_MS,
      bodyIdleMs: e.HTTP_BODY_IDLE_TIMEOUT_MS,
      poolAcquireMs: e.DB_POOL_ACQUIRE_TIMEOUT_MS,
      statementMs: e.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    dbPoolMax: e.DB_POOL_MAX,
    uploadsInFlight: { perTenantBytes: e.UPLOAD_BYTES_IN_FLIGHT_PER_TENANT, totalBytes: e.UPLOAD_BYTES_IN_FLIGHT, queueWaitMs: e.UPLOAD_QUEUE_WAIT_MS },
    storageQuotaBytes: e.STORAGE_QUOTA_BYTES,
    filePurgeGraceMs: e.FILE_PURGE_GRACE_MS,
    filePurgeSweepMs: e.FILE_PURGE_SWEEP_MS,
    keyEncryptionKey: e.KEY_ENCRYPTION_KEY,
    newKeyEncryptionKey: e.NEW_KEY_ENCRYPTION_KEY,
    pdfWorkers,
    // Recycled like the PDF workers, but a public pool of its own: a queue of PDFs never delays a badge, nor the reverse.
    badgeWorkers: {
      ...publicPool,
      laneWorkers: Math.max(1, publicSize - 1),
      jobTimeoutMs: e.BADGE_VERIFY_TIMEOUT_MS,
      heapMb: pdfWorkers.heapMb,
      queueLimit: pdfWorkers.queueLimit,
      maxJobsPerWorker: pdfWorkers.maxJobsPerWorker,
      idleMs: e.WORKER_IDLE_MS,
    },
    verifyMaxBytes: e.VERIFY_MAX_BYTES,
    badgeUnbakeMaxBytes: e.BADGE_UNBAKE_MAX_BYTES,
    corsOrigins: e.CORS_ORIGINS,
    metricsToken: e.METRICS_TOKEN,
    signingP12Passphrase: e.SIGNING_P12_PASSPHRASE,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? e.NODE_ENV !== 'production',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      baseBackoffSeconds: e.WEBHOOK_BACKOFF_BASE_SECONDS,
      maxBackoffSeconds: e.WEBHOOK_BACKOFF_MAX_SECONDS,
      maxEndpointsPerTenant: e.WEBHOOK_MAX_ENDPOINTS_PER_TENANT,
      concurrency: e.WEBHOOK_CONCURRENCY,
      tenantConcurrency: e.WEBHOOK_TENANT_CONCURRENCY,
      disableAfterHours: e.WEBHOOK_DISABLE_AFTER_HOURS,
      noticeEmail: e.WEBHOOK_NOTICE_EMAIL,
    },
    anchoring: e.ANCHOR_RPC_URL
      ? {
          rpcUrl: e.ANCHOR_RPC_URL,
          network: e.ANCHOR_NETWORK,
          privateKey: e.ANCHOR_PRIVATE_KEY,
          // The embedded chain mines a block per transaction only: more than one confirmation would never come.
          confirmations: e.ANCHOR_CONFIRMATIONS ?? (e.NODE_ENV === 'production' && e.ANCHOR_RPC_URL !== 'embedded' ? 12 : 1),
          intervalMs: e.ANCHOR_INTERVAL_SECONDS * 1000,
          maxBatch: e.ANCHOR_MAX_BATCH,
          // A local chain has no explorer: its transactions get no link unless a template says where.
          txUrlTemplate: e.ANCHOR_TX_URL_TEMPLATE ?? (e.ANCHOR_RPC_URL === 'embedded' ? null : (EXPLORER_TEMPLATES[e.ANCHOR_NETWORK] ?? null)),
        }
      : null,
  };
}

/** For entry points: the configuration, or the report on stderr and exit code 2 before anything starts. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.report()}\n`);
    process.exit(2);
  }
}
