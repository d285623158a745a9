import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid } from '../errors/domain-error.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, type Page, SortOrder } from './paging.js';
import { type PageRequest, readPageStatement, type RelatedRows } from './page-statement.js';

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
 * One page of a filtered, sorted list in one statement: the hand-tuned one for plain equality filters
 * (db/page-statement.ts), else built by the query builder. The total is a scalar count subquery with
 * the same conditions (PostgreSQL runs it once), so the page itself can stop after `limit` rows in
 * index order — unlike `count(*) over()`, which materialises and sorts every matching row. uuid
 * (time-ordered) breaks ties so pages never overlap. Both parts apply the default filters (tenant,
 * live rows) exactly as `em.find` would.
 */
export async function findPage<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  filter: FilterQuery<T>,
  { sort, first, after, last, before, withTotal = true, related }: ListOptions,
): Promise<Page<Row<T>>> {
  const { offset, limit } = await window(first, after, last, before, () => em.count(entity, filter));
  const request: PageRequest = {
    filter: filter as Record<string, unknown>,
    sort: sort && { property: toCamel(sort.column), order: sort.order ?? SortOrder.asc },
    limit: withTotal ? limit : limit + 1,
    offset,
    withTotal,
    related,
  };
  const read = (await readPageStatement(em, entity, request)) ?? (await readPageWithQueryBuilder(em, entity, request));
  const { rows, total, related: brought } = read;
  if (!withTotal) return { rows: rows.slice(0, limit), hasMore: rows.length > limit, offset, related: brought };
  // No row carries the total when the window is empty: past the end, or asked for no rows.
  const counted = total ?? (offset === 0 && limit > 0 ? 0 : await em.count(entity, filter));
  // An estimated total cannot tell whether rows follow a full page; a full page says they may.
  const estimated = 'totalIsEstimate' in read && read.totalIsEstimate === true;
  const hasMore = estimated ? rows.length === limit : offset + rows.length < counted;
  return { rows, total: counted, totalIsEstimate: estimated, hasMore, offset, related: brought };
}

/** The page and its total through the ORM's query builder and default filters: any filter the ORM understands. */
export async function readPageWithQueryBuilder<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  { filter, sort, limit, offset, withTotal }: PageRequest,
): Promise<{ rows: Row<T>[]; total: number | undefined; related: RelatedRows[] }> {
  const orderBy = [...(sort ? [{ [sort.property]: sort.order }] : []), { uuid: 'asc' }];
  const counting = em
    .createQueryBuilder(entity, 'counted')
    .count()
    .where(filter as never);
  const page = em
    .createQueryBuilder(entity, 'listed')
    .select(readFields(em, entity) as never)
    .where(filter as never)
    .orderBy(orderBy as never)
    .limit(limit)
    .offset(offset);
  await Promise.all([counting.applyFilters(), page.applyFilters()]);
  if (withTotal) page.addSelect(counting.as(entity, 'listTotal' as never) as never);
  const rows = await readRows(em, entity, page as never);
  const counted = rows[0]?.listTotal;
  // Related rows are left to the request's batched loaders here.
  return { rows, total: counted !== undefined ? Number(counted) : undefined, related: [] };
}

/**
 * The rows a Relay window takes: after `after` and before `before`, then the `first` of them or the
 * `last` of them. Only `last` without `before` needs the list's size first (the window ends there).
 */
async function window(
  first?: number,
  after?: string,
  last?: number,
  before?: string,
  size?: () => Promise<number>,
): Promise<{ offset: number; limit: number }> {
  if (first != null && last != null) throw invalid({ last: ['The last field is prohibited when first is present.'] });
  const start = decodeCursor(after);
  if (Number.isNaN(start)) throw invalid({ after: ['The after cursor is invalid.'] });
  const end = decodeCursor(before);
  if (Number.isNaN(end)) throw invalid({ before: ['The before cursor is invalid.'] });
  const from = start === undefined ? 0 : start! + 1;
  if (last == null) return { offset: from, limit: Math.max(0, Math.min(first ?? DEFAULT_PAGE_SIZE, (end ?? Infinity) - from)) };
  const until = end ?? (await size!());
  const offset = Math.max(from, until - last);
  return { offset, limit: Math.max(0, until - offset) };
}

/**
 * Equality filter from a GraphQL `where` input: present keys only; an explicit null means IS NULL.
 * `columns` renames input fields to entity properties (courseUuid → course); `uuidFields` are
 * checked for shape so a malformed uuid is a 422, not a database error.
 */
export function equalityFilter(where: object | undefined, columns: Record<string, string> = {}, uuidFields: string[] = []): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(where ?? {})) {
    if (value === undefined) continue;
    if (uuidFields.includes(field) && value !== null && !isUuid(value)) {
      throw invalid({ [`where.${field}`]: [`The where ${field} must be a valid UUID.`] });
    }
    filter[columns[field] ?? field] = value;
  }
  return filter;
}
