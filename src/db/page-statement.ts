import type { EntityClass, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_COUNTED_TABLES, liveCountSql } from './live-counts.js';
import { type KeyBound, keysetCondition, keysetOrderBy, type KeysetOrder } from './paging.js';
import { DEFAULT_PAGE_SIZE, type SortOrder } from './paging.js';
import { jsonRowToRow, readableAsJson, type RelatedRead, type Row, rowJsonSql } from './rows.js';
import { sqlRows } from './sql-rows.js';
import { type TenantScope, tenantScopeOf } from './tenant-scope.js';

type Scalar = string | number | boolean | null;

export interface PageRequest {
  /** Property → a value (equality; null is IS NULL) or operators (`{ $gte: … }`, db/filters.ts). */
  filter: Record<string, unknown>;
  /** An entity property, then uuid breaks ties. */
  sort?: { property: string; order: SortOrder };
  limit: number;
  offset: number;
  /** Keyset bounds: only rows after `after` and before `before` in the list's order. */
  after?: KeyBound;
  before?: KeyBound;
  /** Read the list from its end (Relay `last`): the order reversed, so the rows come last first. */
  reverse?: boolean;
  /** Whether each row carries the list's total (a count subquery). */
  withTotal: boolean;
  /** Many-to-ones whose rows each row brings along (db/rows.ts); ignored by the query builder's path. */
  related?: RelatedRead[];
}

/** A page as read: its rows, each row's sort value as PostgreSQL wrote it in JSON (its cursor's key), the total and related rows. */
export interface PageRead<T> {
  rows: Row<T>[];
  keys: unknown[];
  total: number | undefined;
  /** The total is the planner's estimate (`EXACT_TOTAL_LIMIT`); the query builder's path always counts. */
  totalIsEstimate?: boolean;
  related: RelatedRows[];
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

/** A condition on one plain column: equality or IS NULL (`=`, `null`), or an operator of db/filters.ts. */
interface Condition {
  column: string;
  operator: string;
  value: unknown;
}

/**
 * The one hand-tuned list path: one page, the list's total and the related rows the operation selects
 * as ONE statement, for what lists ask: equality and the filter operators (db/filters.ts) on plain
 * columns of an entity whose rows read back exactly as JSON, keyset bounds and either direction. The
 * text depends only on the request's shape, so outside a transaction PostgreSQL plans it once per
 * connection (`sqlRows`' cached plan). Scoped as the ORM's default filters scope every query
 * (db/tenant-scope.ts): the request's tenant and live rows. Returns undefined for anything else
 * (`$or`, custom types), which the query builder handles; test/page-statement.test.ts checks both read the same.
 */
export async function readPageStatement<T extends object>(em: EntityManager, entity: EntityClass<T>, request: PageRequest): Promise<PageRead<T> | undefined> {
  const { filter, sort, limit, offset, withTotal, related = [] } = request;
  if (!readableAsJson(em, entity as EntityClass<object>)) return undefined;
  const meta = em.getMetadata().get(entity as EntityClass<object>) as EntityMetadata<object>;
  const conditions: Condition[] = [];
  for (const [property, value] of Object.entries(filter)) {
    const column = plainColumn(meta, property);
    const found = column ? conditionsOf(column, value) : undefined;
    if (!found) return undefined;
    conditions.push(...found);
  }
  const sortColumn = sort ? plainColumn(meta, sort.property) : undefined;
  if (sort && !sortColumn) return undefined;
  const scope = tenantScopeOf(em, entity as EntityClass<object>, { live: true });
  const window: PageWindow = { limit: PLANNED_PAGE_SIZES.has(limit) ? limit : undefined, size: limit, offset };
  const order = { column: sortColumn, descending: sort?.order === 'desc', reverse: request.reverse === true };
  const { text, values } = pageStatement(em, meta, scope, conditions, order, request, window, withTotal, related);
  const found = await sqlRows<Record<string, string | null>>(em, text, values, 'plan once');
  const listTotal = found[0]?.list_total;
  const raws = found.map(({ row }) => JSON.parse(row as string) as Record<string, unknown>);
  const rows = raws.map((raw) => jsonRowToRow(em, entity as EntityClass<object>, raw) as Row<T>);
  return {
    rows,
    keys: raws.map((raw) => (sortColumn ? raw[sortColumn] : undefined)),
    total: withTotal && listTotal != null ? Number(listTotal) : undefined,
    totalIsEstimate: totalIsEstimate(conditions.length > 0, listTotal != null ? Number(listTotal) : undefined),
    related: related.map((read, index) => ({ entity: read.entity, rows: relatedRows(em, read, rows, found, `related_${index}`) })),
  };
}

/** The SQL conditions a filter value stands for on one column, or undefined when this path cannot write them. */
function conditionsOf(column: string, value: unknown): Condition[] | undefined {
  if (isScalar(value)) return [{ column, operator: value === null ? 'null' : '=', value }];
  if (value instanceof Date) return [{ column, operator: '=', value }];
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const conditions: Condition[] = [];
  for (const [operator, operand] of Object.entries(value as Record<string, unknown>)) {
    const sql = SQL_OPERATORS[operator];
    if (!sql) return undefined;
    if (operator === '$in' ? !Array.isArray(operand) : !(isScalar(operand) || operand instanceof Date)) return undefined;
    if (operand === null && operator !== '$eq' && operator !== '$ne') return undefined;
    conditions.push({ column, operator: operand === null ? (operator === '$eq' ? 'null' : 'not null') : sql, value: operand });
  }
  return conditions;
}

/** The ORM's operators (as db/filters.ts writes them) this statement writes itself. */
const SQL_OPERATORS: Record<string, string> = { $eq: '=', $ne: '<>', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=', $in: 'in', $ilike: 'ilike' };

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

/** The page's size and offset; the size is written into the text when it is a planned one (`limit`), else bound. */
interface PageWindow {
  limit: number | undefined;
  size: number;
  offset: number;
}

function pageStatement(
  em: EntityManager,
  meta: EntityMetadata<object>,
  scope: TenantScope,
  conditions: Condition[],
  order: KeysetOrder,
  { after, before }: Pick<PageRequest, 'after' | 'before'>,
  window: PageWindow,
  withTotal: boolean,
  related: RelatedRead[],
): { text: string; values: unknown[] } {
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const values: unknown[] = [...scope.values];
  const parameter = (value: unknown) => `$${values.push(value)}`;
  // Filter values are bound once and shared by the page and its count.
  const filters = conditions.map(({ column, operator, value }) => {
    if (operator === 'null' || operator === 'not null') return (alias: string) => `${alias}.${quote(column)} is ${operator}`;
    const placeholder = parameter(value);
    if (operator === 'in') return (alias: string) => `${alias}.${quote(column)} = any(${placeholder})`;
    return (alias: string) => `${alias}.${quote(column)} ${operator} ${placeholder}`;
  });
  const where = (alias: string) => [...scope.conditions(alias, 1), ...filters.map((condition) => condition(alias))];
  const uuid = `t.${quote(propertyOf(meta, 'uuid')!.fieldNames[0]!)}`;
  const keyed = { column: order.column && `t.${quote(order.column)}`, descending: order.descending };
  const bounds = [
    ...(after ? [keysetCondition(keyed, uuid, after, 'after', parameter)] : []),
    ...(before ? [keysetCondition(keyed, uuid, before, 'before', parameter)] : []),
  ];
  const orderBy = keysetOrderBy({ ...order, column: keyed.column }, uuid);
  const table = quote(meta.tableName);
  const totalColumn = withTotal ? total(meta.tableName, scope, conditions.length > 0, `from ${table} c where ${where('c').join(' and ')}`) : 'null';
  const limit = window.limit ?? `${parameter(window.size)}::bigint`;
  const offset = window.offset === 0 ? '0' : `${parameter(window.offset)}::bigint`;
  const page = `from ${table} t where ${[...where('t'), ...bounds].join(' and ')} order by ${orderBy} limit ${limit} offset ${offset}`;
  const row = rowJsonSql(em, meta.class as EntityClass<object>, 't');
  if (related.length === 0) return { text: `select ${row}::text as row, ${totalColumn} as list_total ${page}`, values };
  // The page's rows joined to each related row in their tenant ($1), deleted or not, as the batched
  // loader reads it: each related row looked up by its key (a lateral primary-key probe per page row).
  // A plain join let the generic plan hash the tenant's whole related table (courses, cohorts) for
  // every page, a cost that grew with the catalogue (issue 34, test/related-by-key.test.ts).
  const joins = related.map(({ column, entity }, index) => {
    const alias = `r${index}`;
    const target = em.getMetadata().get(entity);
    const targetUuid = quote(propertyOf(target as EntityMetadata<object>, 'uuid')!.fieldNames[0]!);
    const on = [`${alias}.${targetUuid} = t.${quote(column)}`, ...tenantScopeOf(em, entity, { live: false }).conditions(alias, 1)].join(' and ');
    return `left join lateral (select * from ${quote(target.tableName)} ${alias} where ${on} limit 1) ${alias} on true`;
  });
  const relatedColumns = related.map(({ entity }, index) => `, ${rowJsonSql(em, entity, `r${index}`)}::text as related_${index}`).join('');
  return {
    text: `select ${row}::text as row, ${totalColumn} as list_total${relatedColumns} from (select * ${page}) t ${joins.join(' ')} order by ${orderBy}`,
    values,
  };
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
