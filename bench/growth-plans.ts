/**
 * The plans of the statements a request ran, as PostgreSQL executed them (`EXPLAIN ANALYZE` of the
 * captured text with its captured values), and what in them grows with the data: sequential scans and
 * nodes that read or sort many rows.
 */
import pg from 'pg';

/** A node producing more rows than this (rows × loops) is flagged: more than pages and bounded totals need. */
export const MANY_ROWS = 10_000;

export interface StatementPlan {
  sql: string;
  plan: string;
  /** `Seq Scan on students (12,000 rows)`, `Sort (666,666 rows)`…: what grows with the tenant. */
  flags: string[];
}

const NODE =
  /^\s*(?:->\s+)?([A-Z][A-Za-z ]+?(?: on \S+)?)(?: using \S+)?(?: on \S+)?\s+(?:\S+\s+)?\(cost=[^)]*\) \(actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+) loops=(\d+)\)/;

/** The flags of one EXPLAIN ANALYZE text. */
export function planFlags(plan: string): string[] {
  const flags: string[] = [];
  for (const line of plan.split('\n')) {
    const match = NODE.exec(line);
    if (!match) continue;
    const [, node, rows, loops] = match;
    const produced = Number(rows) * Number(loops);
    const name = line
      .trim()
      .replace(/^->\s+/, '')
      .split('  (')[0]!;
    if (node!.startsWith('Seq Scan')) flags.push(`${name} (${produced.toLocaleString('en')} rows)`);
    else if (produced > MANY_ROWS) flags.push(`${name} (${produced.toLocaleString('en')} rows)`);
  }
  return flags;
}

/** The ORM writes `?` placeholders; PostgreSQL's EXPLAIN wants `$n`. */
function numbered(sql: string): string {
  if (/\$\d/.test(sql)) return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const readOnly = (sql: string) => /^\s*(select|with)\b/i.test(sql) && !/\b(insert|update|delete)\b/i.test(sql);

/** EXPLAIN ANALYZE of each read-only statement captured, in a transaction rolled back. */
export async function explainStatements(databaseUrl: string, statements: string[], values: (readonly unknown[] | undefined)[]): Promise<StatementPlan[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const plans: StatementPlan[] = [];
    for (const [index, sql] of statements.entries()) {
      if (!readOnly(sql)) continue;
      await client.query('begin');
      try {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, costs, timing) ${numbered(sql)}`, [...(values[index] ?? [])]);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        plans.push({ sql, plan, flags: planFlags(plan) });
      } catch (error) {
        plans.push({ sql, plan: `(not explained: ${(error as Error).message})`, flags: [] });
      } finally {
        await client.query('rollback');
      }
    }
    return plans;
  } finally {
    await client.end();
  }
}
