import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `text` with bind parameters as a named prepared statement on the ORM's own pg pool: PostgreSQL
 * parses and plans it once per connection instead of once per request, and no query builder runs in
 * Node. For hot reads outside a transaction only (the caller checks). The ORM's `onQuery` hook sees it
 * like any other statement, so statement counts stay honest.
 */
export async function queryPrepared<R extends object>(em: EntityManager, text: string, values: unknown[]): Promise<R[]> {
  em.config.get('onQuery')?.(text, values);
  const pool = await em.getConnection().getNativeClient();
  try {
    const name = statementName(text);
    return (await pool.query<R>(name ? { name, text, values } : { text, values })).rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

const names = new Map<string, string>();

/**
 * Every connection keeps each named statement (and its plan) until it closes, so the service names
 * at most this many texts; any further text runs unnamed (parsed and planned each time).
 */
const MAX_NAMED_STATEMENTS = 256;

/** PostgreSQL truncates names to 63 bytes, so a name is a digest of its text (one text, one name). */
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `q_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
  return name;
}
