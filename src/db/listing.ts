import { type EntityClass, type EntityMetadata, type EntityProperty, type FilterQuery, raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid } from '../errors/domain-error.js';
import { type KeyBound, keysetCondition, keysetOrderTerms, type KeysetOrder } from './paging.js';
import { type Cursor, decodeCursor, DEFAULT_PAGE_SIZE, encodeKeyCursor, type Page, SortOrder, sortSignature } from './paging.js';
import { type PageRead, type PageRequest, readPageStatement } from './page-statement.js';

import { toCamel } from '../identifier-case.js';
import type { TenantScopedEntity } from './base.entity.js';
import { readFields, readRows, type RelatedRead, type Row } from './rows.js';
import { isUuid } from './uuid.js';

export interface ListOptions<Column extends string = string> {
  sort?: { column: Column; order?: SortOrder };
  first?: number;
  after?: string;
  /** Relay's backward paging: the last rows of the window, ending before `before` (or at the list's end). */
  last?: number;
  before?: string;
  /** Count the whole filtered list (default); without, one row more is read to tell whether rows follow. */
  withTotal?: boolean;
  /** Many-to-ones to bring along where the page is one hand-tuned statement (`Page.related`). */
  related?: RelatedRead[];
}

/**
 * One page of a filtered, sorted list in one statement: the hand-tuned one (db/page-statement.ts),
 * else built by the query builder. The total is a scalar count subquery with the same conditions
 * (PostgreSQL runs it once), so the page itself can stop after its rows in index order — unlike
 * `count(*) over()`, which materialises and sorts every matching row. uuid (time-ordered) breaks
 * ties so pages never overlap. Cursors are keys (db/paging.ts): the rows after or before a key stay
 * the same whatever is inserted or deleted elsewhere in the list. Both parts apply the default
 * filters (tenant, live rows) exactly as `em.find` would.
 */
export async function findPage<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  filter: FilterQuery<T>,
  { sort, first, after, last, before, withTotal = true, related }: ListOptions,
): Promise<Page<Row<T>>> {
  if (first != null && last != null) throw invalid({ last: ['The last field is prohibited when first is present.'] });
  const order = sort && { column: sort.column, order: sort.order ?? SortOrder.asc };
  const property = order && toCamel(order.column);
  const meta = em.getMetadata().get(entity as EntityClass<object>) as EntityMetadata<object>;
  const cursors = { after: cursorArgument(after, 'after'), before: cursorArgument(before, 'before') };
  const request = { filter: filter as Record<string, unknown>, sort: order && { property: property!, order: order.order }, withTotal, related };
  const read = (pageRequest: PageRequest) => readPage(em, entity, pageRequest);
  const signature = sortSignature(order);
  const keyOf = (row: Row<T>, index: number, keys: unknown[]) =>
    encodeKeyCursor({ sort: signature, value: order ? keys[index] : null, uuid: (row as { uuid: string }).uuid });

  if (cursors.after?.kind === 'position' || cursors.before?.kind === 'position') {
    return positionPage(em, entity, filter, request, read, { first, last, after: cursors.after, before: cursors.before }, keyOf);
  }
  const bound = (cursor: Cursor | undefined, name: string): KeyBound | undefined => {
    if (!cursor || cursor.kind !== 'key') return undefined;
    if (cursor.key.sort !== signature) throw invalid({ [name]: [`The ${name} cursor belongs to another sort order; page with the sort it was made for.`] });
    if (!isUuid(cursor.key.uuid) || (order && !keyValueFits(meta, property!, cursor.key.value))) throw invalid({ [name]: [`The ${name} cursor is invalid.`] });
    return { value: cursor.key.value, uuid: cursor.key.uuid };
  };
  const reverse = last != null;
  const size = (reverse ? last : first) ?? DEFAULT_PAGE_SIZE;
  const page = await read({ ...request, after: bound(cursors.after, 'after'), before: bound(cursors.before, 'before'), reverse, limit: size + 1, offset: 0 });
  const more = page.rows.length > size;
  const rows = page.rows.slice(0, size);
  const keys = page.keys.slice(0, size);
  if (reverse) [rows, keys].forEach((list) => list.reverse());
  const total = withTotal ? (page.total ?? (after || before ? await em.count(entity, filter) : 0)) : undefined;
  return {
    rows,
    cursors: rows.map((row, index) => keyOf(row, index, keys)),
    total,
    totalIsEstimate: page.totalIsEstimate === true,
    hasMore: reverse ? before != null : more,
    hasPrevious: reverse ? more : after != null,
    related: page.related,
  };
}

/**
 * A page of rows in uuid order (a relation's page, `Loaders.pageBy`), with the cursors the same
 * list in uuid order hands out, so `after` works alike on a relation and on its root list.
 */
export function uuidOrderPage<T>(rows: T[], { hasMore, hasPrevious }: { hasMore: boolean; hasPrevious: boolean }): Page<T> {
  const signature = sortSignature(undefined);
  return {
    rows,
    cursors: rows.map((row) => encodeKeyCursor({ sort: signature, value: null, uuid: (row as { uuid: string }).uuid })),
    hasMore,
    hasPrevious,
  };
}

/** The uuid an `after` cursor of a list in uuid order names; another order's cursor, a position or an edited one is a 422. */
export function uuidOrderBound(after: string | undefined | null, name = 'after'): string | undefined {
  const cursor = cursorArgument(after, name);
  if (!cursor) return undefined;
  if (cursor.kind !== 'key' || cursor.key.sort !== sortSignature(undefined) || !isUuid(cursor.key.uuid)) {
    throw invalid({ [name]: [`The ${name} cursor is invalid.`] });
  }
  return cursor.key.uuid;
}

/** The cursor an argument names; a malformed or edited one is a 422 on that argument. */
function cursorArgument(text: string | undefined | null, name: string): Cursor | undefined {
  if (text == null) return undefined;
  const cursor = decodeCursor(text);
  if (!cursor) throw invalid({ [name]: [`The ${name} cursor is invalid.`] });
  return cursor;
}

/** Whether a key's value could be a value of the sort property (an edited cursor must not reach the database as a type error). */
function keyValueFits(meta: EntityMetadata<object>, property: string, value: unknown): boolean {
  if (value === null) return true;
  const prop = (meta.properties as Record<string, EntityProperty<object> | undefined>)[property];
  if (!prop) return false;
  if (prop.enum) return (prop.items ?? []).includes(value as string);
  switch (prop.runtimeType) {
    case 'Date':
      return typeof value === 'string' && value.length <= 40 && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:\d{2})?))?$/.test(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && value.length <= 10_000;
    default:
      return false;
  }
}

/** The page-statement, else the query builder: both read the same (test/page-statement.test.ts). */
async function readPage<T extends TenantScopedEntity>(em: EntityManager, entity: EntityClass<T>, request: PageRequest): Promise<PageRead<T>> {
  return (await readPageStatement(em, entity, request)) ?? (await readPageWithQueryBuilder(em, entity, request));
}

/**
 * A window named by positions: REST page numbers (and cursors handed out before keys). Rows
 * inserted or deleted before the position move the window; the rows' own cursors are keys.
 */
async function positionPage<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  filter: FilterQuery<T>,
  request: Omit<PageRequest, 'limit' | 'offset'>,
  read: (request: PageRequest) => Promise<PageRead<T>>,
  { first, last, after, before }: { first?: number; last?: number; after?: Cursor; before?: Cursor },
  keyOf: (row: Row<T>, index: number, keys: unknown[]) => string,
): Promise<Page<Row<T>>> {
  if (after?.kind === 'key' || before?.kind === 'key') {
    throw invalid({ [after?.kind === 'key' ? 'after' : 'before']: ['A key cursor and a position cursor cannot be combined.'] });
  }
  const start = after?.kind === 'position' ? after.position + 1 : 0;
  const end = before?.kind === 'position' ? before.position : undefined;
  let offset = start;
  let limit = Math.max(0, Math.min(first ?? DEFAULT_PAGE_SIZE, (end ?? Infinity) - start));
  if (last != null) {
    const until = end ?? (await em.count(entity, filter));
    offset = Math.max(start, until - last);
    limit = Math.max(0, until - offset);
  }
  const { withTotal } = request;
  if (last == null && end === undefined && offset >= FAR_POSITION) {
    const fromEnd = await readFromNearerEnd(request, read, offset, limit);
    if (fromEnd) {
      return {
        rows: fromEnd.rows,
        cursors: fromEnd.rows.map((row, index) => keyOf(row, index, fromEnd.keys)),
        total: withTotal ? fromEnd.total : undefined,
        totalIsEstimate: false,
        hasMore: offset + fromEnd.rows.length < fromEnd.total,
        hasPrevious: true,
        related: fromEnd.related,
      };
    }
  }
  const page = await read({ ...request, limit: withTotal ? limit : limit + 1, offset });
  const rows = page.rows.slice(0, limit);
  // No row carries the total when the window is empty: past the end, or asked for no rows.
  const total = withTotal ? (page.total ?? (offset === 0 && limit > 0 ? 0 : await em.count(entity, filter))) : undefined;
  return {
    rows,
    cursors: rows.map((row, index) => keyOf(row, index, page.keys)),
    total,
    totalIsEstimate: page.totalIsEstimate === true,
    // An estimated total cannot tell whether rows follow a full page; a full page says they may.
    hasMore: total !== undefined && page.totalIsEstimate !== true ? offset + rows.length < total : page.rows.length > limit || rows.length === limit,
    hasPrevious: offset > 0,
    related: page.related,
  };
}

/** From this position on, a page number first asks whether the list's end is nearer than its head. */
const FAR_POSITION = 1_000;

/**
 * A window past the middle of a list, read backwards from its end: `OFFSET` costs the rows it
 * skips, so the last page of a million rows would read them all. Needs the exact total (the
 * tenant's live count, or a count under the exact limit), which a one-row read gives first; with an
 * estimated total, or a window in the first half, undefined (read forwards).
 */
async function readFromNearerEnd<T extends TenantScopedEntity>(
  request: Omit<PageRequest, 'limit' | 'offset'>,
  read: (request: PageRequest) => Promise<PageRead<T>>,
  offset: number,
  limit: number,
): Promise<(PageRead<T> & { total: number }) | undefined> {
  const head = await read({ ...request, related: [], withTotal: true, limit: 1, offset: 0 });
  const total = head.rows.length > 0 && head.totalIsEstimate !== true ? head.total : undefined;
  if (total === undefined || offset <= total / 2) return undefined;
  const size = Math.max(0, Math.min(limit, total - offset));
  const tail = await read({ ...request, withTotal: false, reverse: true, limit: size, offset: Math.max(0, total - offset - size) });
  return { ...tail, rows: tail.rows.slice().reverse(), keys: tail.keys.slice().reverse(), total };
}

/** The page and its total through the ORM's query builder and default filters: any filter the ORM understands. */
export async function readPageWithQueryBuilder<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  { filter, sort, limit, offset, withTotal, after, before, reverse = false }: PageRequest,
): Promise<PageRead<T>> {
  const meta = em.getMetadata().get(entity as EntityClass<object>) as EntityMetadata<object>;
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const column = (property: string) => `${quote('listed')}.${quote((meta.properties as Record<string, EntityProperty<object>>)[property]!.fieldNames[0]!)}`;
  const order: KeysetOrder = { column: sort && column(sort.property), descending: sort?.order === SortOrder.desc, reverse };
  const uuid = column('uuid');
  const counting = em
    .createQueryBuilder(entity, 'counted')
    .count()
    .where(filter as never);
  const page = em
    .createQueryBuilder(entity, 'listed')
    .select(readFields(em, entity) as never)
    .where(filter as never);
  for (const [bound, side] of [
    [after, 'after'],
    [before, 'before'],
  ] as const) {
    if (!bound) continue;
    const values: unknown[] = [];
    page.andWhere(
      keysetCondition(order, uuid, bound, side, (value) => (values.push(value), '?')),
      values,
    );
  }
  page
    .orderBy(keysetOrderTerms(order, uuid).map(({ expression, direction }) => ({ [raw(expression) as never]: direction })) as never)
    .limit(limit)
    .offset(offset);
  if (sort) page.addSelect(raw(`to_jsonb(${order.column})::text as ${quote('cursor_key')}`) as never);
  await Promise.all([counting.applyFilters(), page.applyFilters()]);
  if (withTotal) page.addSelect(counting.as(entity, 'listTotal' as never) as never);
  const rows = await readRows(em, entity, page as never);
  const counted = rows[0]?.listTotal;
  const keys = rows.map((row) => {
    const key = (row as Record<string, unknown>).cursor_key;
    delete (row as Record<string, unknown>).cursor_key;
    // A NULL sort value is SQL NULL here, JSON null in the statement's row.
    return typeof key === 'string' ? JSON.parse(key) : sort ? null : undefined;
  });
  // Related rows are left to the request's batched loaders here.
  return { rows, keys, total: counted !== undefined ? Number(counted) : undefined, related: [] };
}

/**
 * The ORM filter of a GraphQL `where` input: present keys only. A value is equality (an explicit null
 * means IS NULL); an object holds operators (graphql/filter-inputs.ts), on the field its name
 * names without `Is` (`statusIs` → `status`). `columns` renames input fields to entity properties
 * (courseUuid → course); `uuidFields` are checked for shape so a malformed uuid is a 422, not a
 * database error.
 */
export function equalityFilter(where: object | undefined, columns: Record<string, string> = {}, uuidFields: string[] = []): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(where ?? {})) {
    if (value === undefined) continue;
    const operators = isOperators(value);
    const field = operators && key.endsWith('Is') ? key.slice(0, -2) : key;
    const property = columns[field] ?? field;
    if (!operators) {
      if (uuidFields.includes(field) && value !== null && !isUuid(value)) throw invalid({ [`where.${key}`]: [`The where ${key} must be a valid UUID.`] });
      filter[property] = value;
      continue;
    }
    filter[property] = ormOperators(value as Record<string, unknown>, `where.${field}`, uuidFields.includes(field));
  }
  return filter;
}

const isOperators = (value: unknown) => value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value);

const ORM_OPERATORS: Record<string, string> = { eq: '$eq', ne: '$ne', gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte', in: '$in' };
const MAX_IN_VALUES = 100;

/** `{ gte: a, in: [...], contains: 'x' }` as the ORM's operators; `null: true` stands alone. */
function ormOperators(given: Record<string, unknown>, path: string, uuids: boolean): Record<string, unknown> {
  const present = Object.entries(given).filter(([, value]) => value !== undefined);
  const operators: Record<string, unknown> = {};
  const refuse = (operator: string, message: string) => invalid({ [`${path}.${operator}`]: [message] });
  for (const [operator, value] of present) {
    if (operator === 'null') {
      if (value === true && present.length > 1) throw refuse('null', 'The null operator set to true cannot be combined with other operators.');
      if (value === true) operators.$eq = null;
      else if (!('ne' in given)) operators.$ne = null;
      continue;
    }
    if (value === null) throw refuse(operator, `The ${operator} operator needs a value; use null to match empty values.`);
    if (operator === 'contains') {
      operators.$ilike = `%${String(value).replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    if (operator === 'in' && values.length > MAX_IN_VALUES) throw refuse('in', `The in operator takes at most ${MAX_IN_VALUES} values.`);
    if (uuids && values.some((item) => !isUuid(item))) throw refuse(operator, `The ${path.replace('.', ' ')} ${operator} must be a valid UUID.`);
    operators[ORM_OPERATORS[operator]!] = value;
  }
  return operators;
}
