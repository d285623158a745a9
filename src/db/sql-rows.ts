import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { ServicePostgreSqlDriver } from './service-driver.js';

/**
 * Runs `text` with bind parameters (`$1`…) and returns its rows. By default an unnamed statement
 * through the ORM's kysely client, on the EntityManager's transaction when it is in one, else on the
 * pool. With `plan once` (the hot page and record statement only) and outside a transaction, a named
 * statement on the pool: PostgreSQL parses and plans it once per connection (named protocol-level
 * statements pass through PgBouncer ≥ 1.21 in transaction mode with `max_prepared_statements` set;
 * with DATABASE_POOLER=transaction it stays unnamed, planned on every execution).
 * The ORM's `onQuery` hook sees every statement, so statement counts stay honest.
 */
export async function sqlRows<R extends object>(
  em: EntityManager,
  text: string,
  values: unknown[],
  plan: 'each time' | 'plan once' = 'each time',
): Promise<R[]> {
  em.config.get('onQuery')?.(text, values);
  try {
    const name = plan === 'plan once' && !em.isInTransaction() && namedStatements(em) ? statementName(text) : undefined;
    if (name) return (await (await em.getConnection().getNativeClient()).query<R>({ name, text, values })).rows;
    return (await em.getKysely().executeQuery<R>(CompiledQuery.raw(text, values))).rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

function namedStatements(em: EntityManager): boolean {
  const driver: unknown = em.getDriver();
  return !(driver instanceof ServicePostgreSqlDriver) || driver.namedStatements;
}

const names = new Map<string, string>();
/** Every connection keeps each named statement until it closes: at most this many texts get a name. */
const MAX_NAMED_STATEMENTS = 256;

/** PostgreSQL truncates names to 63 bytes, so a name is a digest of its text (one text, one name). */
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `q_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
  return name;
}
