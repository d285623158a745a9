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
  tokenTtlSeconds: number;
  jsonBodyLimit: string;
  shutdownGraceMs: number;
}

export class ConfigError extends Error {}

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function environment(raw: string | undefined): Config['env'] {
  if (raw === 'production' || raw === 'test') return raw;
  return 'development';
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
    smtpUrl: env.SMTP_URL || undefined,
    tokenTtlSeconds: integer('TOKEN_TTL_SECONDS', env.TOKEN_TTL_SECONDS, 43200),
    jsonBodyLimit: env.JSON_BODY_LIMIT || '1mb',
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10000),
  };
}
