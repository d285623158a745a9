import type { EntityClass, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_COUNTED_TABLES, liveCountSql } from './live-counts.js';
import { DEFAULT_PAGE_SIZE, type SortOrder } from './paging.js';
import { jsonRowToRow, readableAsJson, type RelatedRead, type Row, rowJsonSql } from './rows.js';
import { sqlRows } from './sql-rows.js';
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
  /** Many-to-ones whose rows each row brings along (db/rows.ts); ignored by the query builder's path. */
  related?: RelatedRead[];
}

/** The rows a page's rows point at through `PageRequest.related`, each read once, by entity. */
export interface RelatedRows {
  entity: EntityClass<object>;
  rows: Row<object>[];
}

/**
 * Page sizes written into the statement text rather than bound. With `LIMIT $n` PostgreSQL's
 * generic plan assumes a tenth of the table (hash joins over whole related tables), so it plans
 * every execution afresh, which cost more than executing a page; with a literal size and the first
 * page's literal offset the cached generic plan is the right one and planning is skipped. A few
 * common sizes (and each plus the one row that tells whether more follow) keep the texts bounded;
 * any other size or offset is a parameter, planned per execution as before.
 */
const PLANNED_PAGE_SIZES = new Set([1, 10, 15, 20, 25, 50, 100, DEFAULT_PAGE_SIZE].flatMap((size) => [size, size + 1]));

/** Statement texts by entity, filter shape and order: few per resource, and capped anyway. */
const statements = new Map<string, string>();
const MAX_STATEMENTS = 512;

/**
 * The one hand-tuned list path: one page, the list's total and the related rows the operation selects
 * as ONE statement, for what most lists ask: equality on plain columns (`where[course_uuid]=…`,
 * `where[status]=…`, null meaning IS NULL) of an entity whose rows read back exactly as JSON. The
 * text depends only on the filter's shape, so outside a transaction PostgreSQL plans it once per
 * connection (`sqlRows`' cached plan) and Node builds nothing per request. Scoped as the ORM's default
 * filters scope every query (db/tenant-scope.ts): the request's tenant and live rows. Returns undefined
 * for anything else (operators, custom types), which the query builder handles;
 * test/page-statement.test.ts checks both read the same.
 */
export async function readPageStatement<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  { filter, sort, limit, offset, withTotal, related = [] }: PageRequest,
): Promise<{ rows: Row<T>[]; total: number | undefined; totalIsEstimate: boolean; related: RelatedRows[] } | undefined> {
  if (!readableAsJson(em, entity as EntityClass<object>)) return undefined;
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
  const window: PageWindow = { limit: PLANNED_PAGE_SIZES.has(limit) ? limit : undefined, firstPage: offset === 0 };
  const values: unknown[] = [
    ...scope.values,
    ...conditions.filter(({ value }) => value !== null).map(({ value }) => value),
    ...(window.limit === undefined ? [limit] : []),
    ...(window.firstPage ? [] : [offset]),
  ];
  const key = [
    meta.className,
    ...conditions.map(({ column, value }) => `${column}${value === null ? ' null' : ''}`),
    sortColumn,
    sort?.order,
    withTotal,
    window.limit ?? 'limit',
    window.firstPage,
    ...related.map(({ property }) => property),
  ].join('|');
  let text = statements.get(key);
  if (!text) {
    const order = sortColumn ? { column: sortColumn, descending: sort!.order === 'desc' } : undefined;
    text = pageStatement(em, meta, scope, conditions, order, window, withTotal, related);
    if (statements.size < MAX_STATEMENTS) statements.set(key, text);
  }
  const found = await sqlRows<Record<string, string | null>>(em, text, values, 'plan once');
  const listTotal = found[0]?.list_total;
  const rows = found.map(({ row }) => jsonRowToRow(em, entity as EntityClass<object>, JSON.parse(row as string) as Record<string, unknown>) as Row<T>);
  return {
    rows,
    total: withTotal && listTotal != null ? Number(listTotal) : undefined,
    totalIsEstimate: totalIsEstimate(conditions.length > 0, listTotal != null ? Number(listTotal) : undefined),
    related: related.map((read, index) => ({ entity: read.entity, rows: relatedRows(em, read, rows, found, `related_${index}`) })),
  };
}

/** Each distinct row the page's rows point at through `read`, parsed once. */
function relatedRows(em: EntityManager, read: RelatedRead, rows: Row<object>[], found: Record<string, string | null>[], column: string): Row<object>[] {
  const seen = new Set<string>();
  const result: Row<object>[] = [];
  rows.forEach((row, index) => {
    const uuid = (row as Record<string, unknown>)[read.property] as string | null;
    const text = found[index]![column] as string | null;
    if (uuid == null || text == null || seen.has(uuid)) return;
    seen.add(uuid);
    result.push(jsonRowToRow(em, read.entity, JSON.parse(text) as Record<string, unknown>));
  });
  return result;
}

/** The page's size when it is written into the text (else bound), and whether it starts at the first row. */
interface PageWindow {
  limit: number | undefined;
  firstPage: boolean;
}

function pageStatement(
  em: EntityManager,
  meta: EntityMetadata<object>,
  scope: TenantScope,
  conditions: { column: string; value: Scalar }[],
  sort: { column: string; descending: boolean } | undefined,
  window: PageWindow,
  withTotal: boolean,
  related: RelatedRead[],
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
  const totalColumn = withTotal ? total(meta.tableName, scope, conditions.length > 0, `from ${table} c where ${where('c').sql}`) : 'null';
  let parameter = listed.parameters;
  const limit = window.limit ?? `$${++parameter}::bigint`;
  const offset = window.firstPage ? '0' : `$${++parameter}::bigint`;
  const page = `from ${table} t where ${listed.sql} order by ${orderBy} limit ${limit} offset ${offset}`;
  const row = rowJsonSql(em, meta.class as EntityClass<object>, 't');
  if (related.length === 0) return `select ${row}::text as row, ${totalColumn} as list_total ${page}`;
  // The page's rows joined to each related row in their tenant ($1), deleted or not, as the batched
  // loader reads it. Joins, not a subquery per row: the planner then reads a small table once. For
  // one row (a record by uuid) that once is the waste: the generic plan hashed whole small tables
  // (courses, cohorts) to find one row each, so a record looks each related row up on its own.
  const oneRow = window.limit === 1;
  const joins = related.map(({ column, entity }, index) => {
    const alias = `r${index}`;
    const target = em.getMetadata().get(entity);
    const targetUuid = quote(propertyOf(target as EntityMetadata<object>, 'uuid')!.fieldNames[0]!);
    const on = [`${alias}.${targetUuid} = t.${quote(column)}`, ...tenantScopeOf(em, entity, { live: false }).conditions(alias, 1)].join(' and ');
    const relatedTable = quote(target.tableName);
    return oneRow
      ? `left join lateral (select * from ${relatedTable} ${alias} where ${on} limit 1) ${alias} on true`
      : `left join ${relatedTable} ${alias} on ${on}`;
  });
  const relatedColumns = related.map(({ entity }, index) => `, ${rowJsonSql(em, entity, `r${index}`)}::text as related_${index}`).join('');
  return `select ${row}::text as row, ${totalColumn} as list_total${relatedColumns} from (select * ${page}) t ${joins.join(' ')} order by ${orderBy}`;
}

/** Up to this many matching rows a list's total is counted exactly; past it, estimated (`totalIsEstimate`). */
export const EXACT_TOTAL_LIMIT = 10_000;

/** Whether a total the page statement gave is the planner's estimate: a filtered list past the exact limit. */
export const totalIsEstimate = (filtered: boolean, total: number | undefined) => filtered && total !== undefined && total > EXACT_TOTAL_LIMIT;

/**
 * The list's total as a scalar subquery over `source` (`from … c where …`). A tenant's whole live
 * list is counted by triggers (db/live-counts.ts). Anything else is counted up to EXACT_TOTAL_LIMIT
 * + 1 rows and no further, so a page never reads more than that for its total however many rows
 * match; past the limit the total is the planner's estimate (`page_total_estimate`, planned, not run;
 * the bound values quoted by `format`), kept above the limit and, where the tenant's live count is
 * known, below it. The bounded count comes first in the text: PostgreSQL types the bound parameters
 * from the columns they are compared with before `format` sees them.
 */
function total(table: string, scope: TenantScope, filtered: boolean, source: string): string {
  const counted = scope.byTenant && LIVE_COUNTED_TABLES.has(table);
  if (!filtered && counted) return liveCountSql(table, '$1');
  const placeholders: string[] = [];
  const template = source
    .replace(/'/g, "''")
    .replace(/%/g, '%%')
    .replace(/\$\d+/g, (placeholder) => (placeholders.push(placeholder), '%L'));
  const estimate = `page_total_estimate(format('select 1 ${template}'${placeholders.map((placeholder) => `, ${placeholder}`).join('')}))`;
  const capped = counted ? `least(${liveCountSql(table, '$1')}, ${estimate})` : estimate;
  return `(select case when bounded.n > ${EXACT_TOTAL_LIMIT} then greatest(${EXACT_TOTAL_LIMIT + 1}, ${capped}) else bounded.n end
    from (select count(*) as n from (select 1 ${source} limit ${EXACT_TOTAL_LIMIT + 1}) limited) bounded)`;
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
