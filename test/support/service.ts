import { ClientService } from '../../src/auth/client.service.js';
import { loadConfig } from '../../src/config.js';
import type { ServiceRuntime } from '../../src/context/request-context.js';
import type { Orm } from '../../src/db/orm.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { TenantService } from '../../src/tenants/tenant.service.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestService {
  url: string;
  /** Every SQL statement the service ran, in order; tests clear it and count. */
  statements: string[];
  /** The same statements with their bind values (`sql` as the ORM logs it), for tests that plan them; cleared on its own. */
  queries: { sql: string; values: readonly unknown[] }[];
  orm: Orm;
  /** The running service's file runtime, signing keys and document workers (what its contexts carry). */
  runtime: ServiceRuntime;
  database: TestDatabase;
  stop(): Promise<void>;
}

export const PUBLIC_BASE_URL = 'http://credentials.test';

/** No background workers or sweeps: for tests that count the statements of their own requests. */
export const NO_BACKGROUND_WORK = {
  NOTIFICATION_WORKER: 'off',
  JOB_WORKER: 'off',
  EXPIRY_SWEEP_MS: '0',
  IDEMPOTENCY_SWEEP_MS: '0',
  FILE_PURGE_SWEEP_MS: '0',
  TOKEN_PURGE_MS: '0',
  WALLET_PURGE_MS: '0',
};

/** Suites that send many requests measure behaviour, not throttles; rate-limit tests turn these back on. */
const PER_MINUTE_LIMITS_OFF = {
  RATE_LIMIT_API_PER_MINUTE: '0',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '0',
  RATE_LIMIT_VERIFY_PER_MINUTE: '0',
  RATE_LIMIT_PUBLIC_WORKER_MS_PER_MINUTE: '0',
  RATE_LIMIT_RESPONSE_BYTES_PER_MINUTE: '0',
};

/**
 * Test machines run many suites at once: a niced public worker would only get the CPU time they all
 * leave over and run into its wall-clock limits. test/fair-workers.test.ts turns the niceness back on.
 */
const PUBLIC_WORKERS_AT_NORMAL_PRIORITY = { PUBLIC_WORKER_NICE: '0' };

/**
 * Clients' GraphQL documents run compiled (graphql-jit) from their first run, so every suite checks
 * the execution repeated production traffic gets; test/compiled-execution.test.ts compares the two.
 */
const COMPILED_FROM_FIRST_RUN = { GRAPHQL_JIT_AFTER_RUNS: '1' };

/** The real service (HTTP server, Apollo, REST, ORM) on a fresh database and a free port. */
export async function startTestService(env: Record<string, string> = {}, database?: TestDatabase, logger?: Logger): Promise<TestService> {
  const db = database ?? (await createTestDatabase());
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    DATABASE_MIGRATION_URL: db.ownerUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL,
    ...PER_MINUTE_LIMITS_OFF,
    ...PUBLIC_WORKERS_AT_NORMAL_PRIORITY,
    ...COMPILED_FROM_FIRST_RUN,
    ...env,
  });
  const statements: string[] = [];
  const queries: TestService['queries'] = [];
  const onQuery = (sql: string, values?: readonly unknown[]) => {
    statements.push(sql);
    queries.push({ sql, values: values ?? [] });
    // Bounded: only a test that clears it reads it.
    if (queries.length > 10_000) queries.splice(0, 5_000);
  };
  const service = await startService(config, logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { onQuery });
  return {
    url: service.url,
    statements,
    queries,
    orm: service.orm,
    runtime: service.runtime,
    database: db,
    async stop() {
      await service.stop();
      if (!database) await db.drop();
    },
  };
}

export interface Credentials {
  tenant: string;
  clientId: string;
  clientSecret: string;
}

export async function provisionClient(orm: Orm, tenant: string): Promise<Credentials> {
  const em = orm.em.fork();
  await new TenantService(em).ensure(tenant);
  return new ClientService(em).create(tenant);
}

export async function requestToken(baseUrl: string, { clientId, clientSecret }: Pick<Credentials, 'clientId' | 'clientSecret'>): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

async function read(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: response.status, body, headers: response.headers };
}

/** Talks to the service as one tenant's integration would: bearer token + X-Tenant on every call. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
    readonly tenant: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, 'x-tenant': this.tenant, accept: 'application/json', ...extra };
  }

  async rest(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<ApiResponse> {
    const init: RequestInit = { method, headers: this.headers(extraHeaders) };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof FormData ? body : JSON.stringify(body);
      if (!(body instanceof FormData)) (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    return read(await fetch(`${this.baseUrl}/api/v1${path}`, init));
  }

  async graphql(query: string, variables: Record<string, unknown> = {}): Promise<ApiResponse> {
    return read(
      await fetch(`${this.baseUrl}/graphql`, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ query, variables }),
      }),
    );
  }
}

/** A tenant with its own client and a live token, ready to call the API. */
export async function signIn(service: TestService, tenant: string): Promise<ApiClient> {
  const credentials = await provisionClient(service.orm, tenant);
  const response = await requestToken(service.url, credentials);
  const { access_token } = (await response.json()) as { access_token: string };
  return new ApiClient(service.url, access_token, tenant);
}
