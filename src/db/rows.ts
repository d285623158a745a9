import { DecimalType, type EntityClass, type Reference } from '@mikro-orm/core';
import type { EntityManager, QueryBuilder } from '@mikro-orm/postgresql';

/**
 * A row read for display: the entity's properties with JS types (MikroORM maps names and converts
 * values), but no managed entity behind it — nothing is created, tracked or snapshotted, which is
 * most of the cost of reading a page. Relations hold the related row's uuid instead of a reference.
 * Rows carry the entity's prototype (without running its constructor), so `instanceof` holds and
 * Type-GraphQL passes them to field resolvers as they are instead of copying each into a new instance.
 */
export type Row<T> = { [K in keyof T]: RowValue<T[K]> };

/** A many-to-one on a read row: the related row's uuid (null stays null). */
type RowValue<V> = V extends Reference<object> ? string : V;

/** An entity or its read row: what a GraphQL field resolver receives as its parent. */
export type Readable<T> = T | Row<T>;

const decimalsByEntity = new WeakMap<object, string[]>();

function numericDecimals(em: EntityManager, entity: EntityClass<object>): string[] {
  let names = decimalsByEntity.get(entity);
  if (!names) {
    const meta = em.getMetadata().get(entity);
    names = meta.props.filter((prop) => prop.customType instanceof DecimalType && prop.customType.mode === 'number').map((prop) => prop.name);
    decimalsByEntity.set(entity, names);
  }
  return names;
}

/** Runs a select query builder and returns plain rows (see `Row`). */
export async function readRows<T extends object>(em: EntityManager, entity: EntityClass<T>, query: QueryBuilder<T>): Promise<Row<T>[]> {
  const rows = (await query.execute('all', true)) as unknown as Record<string, unknown>[];
  const decimals = numericDecimals(em, entity as EntityClass<object>);
  const prototype = (entity as unknown as { prototype: object }).prototype;
  return rows.map((row) => {
    for (const name of decimals) if (row[name] != null) row[name] = Number(row[name]);
    return Object.assign(Object.create(prototype), row) as Row<T>;
  });
}
