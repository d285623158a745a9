import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A condition a request's reads may prove inside their own statement instead of a statement of its
 * own (the cached principal of auth/principal-check.ts). A statement that carries it selects the
 * condition as a column, whatever rows it finds, and hands the answer to `prove`.
 */
export interface StatementGuard {
  /** Whether the condition still needs proving and no statement carries it yet. */
  readonly pending: boolean;
  /** The condition as a boolean SQL expression with its bind values, numbered from `$first`; the caller's statement now carries it. */
  condition(first: number): { sql: string; values: unknown[] };
  /** Records a statement's answer; throws the guard's error when the condition does not hold. */
  prove(holds: boolean): void;
}

const guards = new WeakMap<EntityManager, StatementGuard>();

export function guardStatements(em: EntityManager, guard: StatementGuard): void {
  guards.set(em, guard);
}

/** The guard still to be proven by the next statement on `em`, if any. */
export function pendingGuard(em: EntityManager): StatementGuard | undefined {
  const guard = guards.get(em);
  return guard?.pending ? guard : undefined;
}
