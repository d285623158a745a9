import pg from 'pg';

/** `work` on a connection of its own to `url` (the test database's owner URL to seed, its service URL to explain). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
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

/** The rows each plan node whose line matches `node` produced in all (rows × loops). */
export function rowsProduced(plan: string, node = /.*/): number[] {
  return plan
    .split('\n')
    .filter((line) => node.test(line))
    .flatMap((line) => [...line.matchAll(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)/g)].map(([, n, loops]) => Number(n) * Number(loops)));
}
