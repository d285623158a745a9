/**
 * Issue 2: the cost of authentication. The token endpoint and an authenticated no-op request
 * against a plain Express handler in the same process, plus a breakdown that separates the token
 * lookup (raw SQL, then the real `authenticate()` middleware) from the REST → GraphQL execution.
 */
import express from 'express';
import pg from 'pg';
import { requestLogger } from '../src/http/request-record.js';
import { authenticate, requestContext } from '../src/auth/authenticate.js';
import { PrincipalCache } from '../src/auth/principal-cache.js';
import { sha256Hex } from '../src/auth/secrets.js';
import { createRateLimits } from '../src/rate-limits/rate-limits.js';
import { listenLocal, measure, printTable, tokenRequest, type BenchEnv, type Row } from './support.js';

// Same statement as TokenService.principal, so this row is the floor the database sets.
const PRINCIPAL_SQL = `
  select c.client_id, t.uuid as tenant_uuid, t.identifier as tenant_identifier, t.name as tenant_name
  from oauth_access_tokens a
  join oauth_clients c on c.uuid = a.client_uuid
  join tenants t on t.uuid = c.tenant_uuid
  where a.token_hash = $1 and a.revoked_at is null and c.revoked_at is null and a.expires_at > now()`;

const BEARER = /^Bearer\s+(\S+)$/i;

/** The baseline and the two breakdown routes, mounted on one bench-owned Express app. */
function breakdownApp(env: BenchEnv, pool: pg.Pool): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/plain', (_req, res) => void res.json({ ok: true }));
  app.get('/raw-lookup', async (req, res) => {
    const token = BEARER.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const { rows } = await pool.query(PRINCIPAL_SQL, [sha256Hex(token)]);
    if (rows.length === 0 || rows[0].tenant_identifier !== req.get('x-tenant')) res.status(401);
    res.json({ clientId: rows[0]?.client_id });
  });
  // As the service mounts it: request logging (silent) first, then the middleware under test (its
  // cache hears no revocations, so it never answers: every request measures the lookup).
  app.get(
    '/authenticated',
    requestLogger(env.logger),
    authenticate(env.orm, env.config, env.runtime, createRateLimits(env.orm, env.config), new PrincipalCache()),
    (_req, res) => {
      const { principal } = requestContext(res);
      res.json({ clientId: principal.clientId, tenant: { identifier: principal.tenant.identifier, name: principal.tenant.name } });
    },
  );
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ message: String(error) });
  });
  return app;
}

const cpu = (row: Row) => row.serverUs + (row.postgresUs ?? 0);

/** Each layer's cost as the CPU a request gains from one row to the next, on both sides. */
function printBreakdown(plain: Row, raw: Row, authOnly: Row, whoami: Row): void {
  const us = (value: number | undefined) => (value === undefined ? '     -' : value.toFixed(0).padStart(6));
  const step = (label: string, from: Row, to: Row) => {
    const postgres = to.postgresUs !== undefined && from.postgresUs !== undefined ? to.postgresUs - from.postgresUs : undefined;
    console.log(`  ${label.padEnd(52)} ${us(to.serverUs - from.serverUs)} ${us(postgres)}`);
  };
  console.log('\nwhere a whoami request spends CPU (µs a request: server thread, PostgreSQL):');
  step('plain Express: HTTP parse, route, JSON reply', { ...plain, serverUs: 0, postgresUs: 0 }, plain);
  step('+ token lookup as one raw SQL query via pg', plain, raw);
  step('+ authenticate(): ORM fork and execute, context, pino', raw, authOnly);
  step('+ REST route: body parsers, GraphQL execute, envelope', authOnly, whoami);
  step('= whoami', { ...plain, serverUs: 0, postgresUs: 0 }, whoami);
  const auth = cpu(authOnly) - cpu(plain);
  console.log(`  token verification: ${auth.toFixed(0)} of the ${cpu(whoami).toFixed(0)} CPU µs of a whoami request (rows are measured apart: ±10-20 µs)`);
}

export async function runAuthBench(env: BenchEnv): Promise<Row[]> {
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 20 });
  const local = await listenLocal(breakdownApp(env, pool));
  try {
    const viewer = JSON.stringify({ query: '{ viewer { clientId tenant { identifier name } } }' });
    const plain = await measure(env, '(c) plain Express handler', { url: `${local.url}/plain` });
    const token = await measure(env, '(a) POST /api/v1/oauth/token', {
      url: `${env.url}/api/v1/oauth/token`,
      method: 'POST',
      ...tokenRequest(env.credentials),
    });
    const whoami = await measure(env, '(b) GET /api/v1/whoami', { url: `${env.url}/api/v1/whoami`, headers: env.auth });
    const graphql = await measure(env, '    POST /graphql { viewer }', {
      url: `${env.url}/graphql`,
      method: 'POST',
      headers: { ...env.auth, 'content-type': 'application/json' },
      body: viewer,
    });
    const raw = await measure(env, '    Express + raw SQL token lookup', { url: `${local.url}/raw-lookup`, headers: env.auth });
    const authOnly = await measure(env, '    Express + authenticate() only', { url: `${local.url}/authenticated`, headers: env.auth });
    const rows = [plain, token, whoami, graphql, raw, authOnly];
    printTable('auth: token issue and authenticated no-op vs plain Express', rows, plain);
    console.log(`ratios: (b)/(c) = ${(whoami.rps / plain.rps).toFixed(2)}, (a)/(c) = ${(token.rps / plain.rps).toFixed(2)}`);
    printBreakdown(plain, raw, authOnly, whoami);
    return rows;
  } finally {
    await local.close();
    await pool.end();
  }
}
