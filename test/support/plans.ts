import type pg from 'pg';
import { withClient } from '../../src/db/database-roles.js';
import { NO_BACKGROUND_WORK, signIn, startTestService } from './service.js';

/**
 * A service (no background work) whose tenant `acme` is seeded by `seed` through the owner's own
 * connection (bulk SQL, far faster than the API), then analysed; a client signed in to it and the tenant's uuid.
 */
export async function startSeededService(seed: (client: pg.Client, tenantUuid: string) => Promise<void>) {
  const service = await startTestService(NO_BACKGROUND_WORK);
  const acme = await signIn(service, 'acme');
  const tenantUuid = await withClient(service.database.ownerUrl, async (client) => {
    const uuid = (await client.query<{ uuid: string }>(`select uuid from tenants where identifier = 'acme'`)).rows[0]!.uuid;
    await seed(client, uuid);
    await client.query('analyze');
    return uuid;
  });
  return { service, acme, tenantUuid };
}

/**
 * The plan PostgreSQL ran for `sql` (EXPLAIN ANALYZE, text). `generic` plans it as the service's named
 * statement is planned, once per connection without looking at the values.
 */
export function analyzedPlan(url: string, sql: string, values: unknown[], { generic = false } = {}): Promise<string> {
  return withClient(url, async (client) => {
    if (generic) await client.query('set plan_cache_mode = force_generic_plan');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, format text) ${sql}`, values);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** The rows each plan node whose line matches `node` produced in all (rows × loops; PostgreSQL 18 writes rows=10.00). */
export function rowsProduced(plan: string, node = /.*/): number[] {
  return plan
    .split('\n')
    .filter((line) => node.test(line))
    .flatMap((line) => [...line.matchAll(/actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+) loops=(\d+)/g)].map(([, n, loops]) => Number(n) * Number(loops)));
}
