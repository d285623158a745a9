import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/**
 * Runs `text` with bind parameters (`$1`…) as an unnamed statement through the ORM's kysely client:
 * on the EntityManager's transaction when it is in one, else on the pool. Unnamed, so nothing lives
 * on a connection past the statement (safe behind PgBouncer in transaction mode). The ORM's
 * `onQuery` hook sees it like any other statement, so statement counts stay honest.
 */
export async function sqlRows<R extends object>(em: EntityManager, text: string, values: unknown[]): Promise<R[]> {
  em.config.get('onQuery')?.(text, values);
  try {
    return (await em.getKysely().executeQuery<R>(CompiledQuery.raw(text, values))).rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}
