import type { EntityClass, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from './sql-rows.js';
import { tenantScopeOf } from './tenant-scope.js';

/*
 * Columns that can be large (a template's free JSON `design_config`) are `lazy` on their entity: the
 * ORM leaves them out of its selects unless populated, and so does every display read here (page
 * statements, loaders, lookups by uuid). A field that shows one reads it on its own, after charging
 * its stored size to the answer's budget (context/response-budget.ts): a page of rows never brings
 * megabytes along unasked, and an answer over budget is refused before the bytes are read.
 */

const lazyByEntity = new WeakMap<object, EntityProperty<object>[]>();

function lazyColumns(em: EntityManager, entity: EntityClass<object>): EntityProperty<object>[] {
  let lazy = lazyByEntity.get(entity);
  if (!lazy) {
    lazy = (em.getMetadata().get(entity) as EntityMetadata<object>).props.filter((prop) => prop.lazy && prop.fieldNames?.length === 1 && !prop.formula);
    lazyByEntity.set(entity, lazy);
  }
  return lazy;
}

/** The columns of `entity`'s table a display row reads: every one but the lazy ones. */
function readColumns(em: EntityManager, entity: EntityClass<object>): string[] {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  return meta.props.filter((prop) => prop.fieldNames?.length && !prop.lazy && !prop.formula && prop.persist !== false).flatMap((prop) => prop.fieldNames);
}

/**
 * SQL for the row under `alias` as `json`, as `row_to_json(alias)` gives it but without lazy columns
 * (null when the alias matched no row, as `row_to_json` of an outer join's missing row is).
 */
export function rowJsonSql(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  if (lazyColumns(em, entity).length === 0) return `row_to_json(${alias})`;
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const pairs = readColumns(em, entity).map((column) => `'${column}', ${alias}.${quote(column)}`);
  const uuid = (em.getMetadata().get(entity).properties as Record<string, { fieldNames: string[] }>)['uuid']!.fieldNames[0]!;
  return `(case when ${alias}.${quote(uuid)} is not null then json_build_object(${pairs.join(', ')}) end)`;
}

/** What a query builder selects for a display row: `*`, or every property but the lazy ones. */
export function readFields(em: EntityManager, entity: EntityClass<object>): string[] {
  if (lazyColumns(em, entity).length === 0) return ['*'];
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  return meta.props.filter((prop) => prop.fieldNames?.length && !prop.lazy && !prop.formula && prop.persist !== false).map((prop) => prop.name);
}

/**
 * One lazy column of rows by uuid as JSON text (null where the column is), in the EntityManager's
 * tenant, deleted rows too (as the loaders read rows), committed state (the loaders' EntityManager is
 * never inside a write's transaction). Its caller has charged the stored sizes.
 */
export async function readLazyJson(em: EntityManager, entity: EntityClass<object>, property: string, uuids: string[]): Promise<Map<string, string | null>> {
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const column = (name: string) => `t.${quote((meta.properties as Record<string, { fieldNames: string[] }>)[name]!.fieldNames[0]!)}`;
  const scope = tenantScopeOf(em, entity, { live: false });
  const conditions = [`${column('uuid')} = any($1::uuid[])`, ...scope.conditions('t', 2)];
  const text = `select ${column('uuid')} as uuid, ${column(property)}::text as json from ${quote(meta.tableName)} t where ${conditions.join(' and ')}`;
  const rows = await sqlRows<{ uuid: string; json: string | null }>(em, text, [uuids, ...scope.values]);
  return new Map(rows.map(({ uuid, json }) => [uuid, json]));
}
