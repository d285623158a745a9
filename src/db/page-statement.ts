import type { EntityClass, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_COUNTED_TABLES, liveCountSql } from './live-counts.js';
import type { SortOrder } from './paging.js';
import { queryPrepared } from './prepared.js';
import type { Row } from './rows.js';
import { jsonRowToRow, readableAsJson } from './rows-by-uuid.js';
import { type TenantScope, tenantScopeOf } from './tenant-scope.js';

type Scalar = string | number | boolean | null;

export interface PageRequest {
  filter: Record<string, unknown>;
  /** An entity property, then uuid breaks ties. */
  sort?: { property: string; order: SortOrder };
  limit: number;
  offset: number;
  /** Whether each row carries the list's total (a count subquery). */
  withTotal: boolean;
}

/** Statement texts by entity, filter shape and order: few per resource, and capped anyway. */
const statements = new Map<string, string>();
const MAX_STATEMENTS = 512;

/**
 * One page and the list's total as ONE prepared statement, for what most lists ask: equality on
 * plain columns (`where[course_uuid]=…`, `where[status]=…`, null meaning IS NULL) of an entity whose
 * rows read back exactly as JSON. The text depends only on the filter's shape, so PostgreSQL plans it
 * once per connection and Node builds nothing per request. Scoped as the ORM's default filters scope
 * every query (db/tenant-scope.ts): the request's tenant and live rows. Returns undefined for
 * anything else (operators, custom types, inside a transaction), which the query builder handles.
 */
export async function readPageStatement<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  { filter, sort, limit, offset, withTotal }: PageRequest,
): Promise<{ rows: Row<T>[]; total: number | undefined } | undefined> {
  if (em.isInTransaction() || !readableAsJson(em, entity as EntityClass<object>)) return undefined;
  const meta = em.getMetadata().get(entity as EntityClass<object>) as EntityMetadata<object>;
  const conditions: { column: string; value: Scalar }[] = [];
  for (const [property, value] of Object.entries(filter)) {
    const column = plainColumn(meta, property);
    if (!column || !isScalar(value)) return undefined;
    conditions.push({ column, value });
  }
  const sortColumn = sort ? plainColumn(meta, sort.property) : undefined;
  if (sort && !sortColumn) return undefined;
  const scope = tenantScopeOf(em, entity as EntityClass<object>, { live: true });
  const values: unknown[] = [...scope.values, ...conditions.filter(({ value }) => value !== null).map(({ value }) => value), limit, offset];
  const key = [meta.className, ...conditions.map(({ column, value }) => `${column}${value === null ? ' null' : ''}`), sortColumn, sort?.order, withTotal].join(
    '|',
  );
  let text = statements.get(key);
  if (!text) {
    text = pageStatement(em, meta, scope, conditions, sortColumn ? { column: sortColumn, descending: sort!.order === 'desc' } : undefined, withTotal);
    if (statements.size < MAX_STATEMENTS) statements.set(key, text);
  }
  const found = await queryPrepared<{ row: string; list_total: string | null }>(em, text, values);
  const rows = found.map(({ row }) => jsonRowToRow(em, entity as EntityClass<object>, JSON.parse(row) as Record<string, unknown>) as Row<T>);
  return { rows, total: withTotal && found.length > 0 ? Number(found[0]!.list_total) : undefined };
}

function pageStatement(
  em: EntityManager,
  meta: EntityMetadata<object>,
  scope: TenantScope,
  conditions: { column: string; value: Scalar }[],
  sort: { column: string; descending: boolean } | undefined,
  withTotal: boolean,
): string {
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const where = (alias: string) => {
    const parts = scope.conditions(alias, 1);
    let parameter = scope.values.length;
    for (const { column, value } of conditions) parts.push(`${alias}.${quote(column)} ${value === null ? 'is null' : `= $${++parameter}`}`);
    return { sql: parts.join(' and '), parameters: parameter };
  };
  const listed = where('t');
  const uuid = quote(propertyOf(meta, 'uuid')!.fieldNames[0]!);
  const orderBy = [...(sort ? [`t.${quote(sort.column)} ${sort.descending ? 'desc' : 'asc'}`] : []), `t.${uuid} asc`].join(', ');
  const table = quote(meta.tableName);
  return [
    `select row_to_json(t)::text as row, ${withTotal ? total(meta.tableName, scope, conditions.length > 0, `select count(*) from ${table} c where ${where('c').sql}`) : 'null'} as list_total`,
    `from ${table} t where ${listed.sql}`,
    `order by ${orderBy} limit $${listed.parameters + 1}::bigint offset $${listed.parameters + 2}::bigint`,
  ].join(' ');
}

/** A tenant's whole live list is counted by triggers (db/live-counts.ts); anything filtered is counted here. */
function total(table: string, scope: TenantScope, filtered: boolean, count: string): string {
  return !filtered && scope.byTenant && LIVE_COUNTED_TABLES.has(table) ? liveCountSql(table, '$1') : `(${count})`;
}

/** The column of a property stored in one plain column (scalars, enums, many-to-one uuids); undefined for the rest. */
function plainColumn(meta: EntityMetadata<object>, property: string): string | undefined {
  const prop = propertyOf(meta, property);
  if (!prop || prop.fieldNames?.length !== 1 || prop.formula || prop.persist === false) return undefined;
  if (prop.customType && !['uuid', 'enum'].includes(prop.type.toLowerCase())) return undefined;
  return prop.fieldNames[0];
}

const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

const propertyOf = (meta: EntityMetadata<object>, name: string) => (meta.properties as Record<string, EntityProperty<object> | undefined>)[name];
