import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid } from '../errors/domain-error.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, type Page, type SortOrder } from './paging.js';
import { toCamel } from '../identifier-case.js';
import type { TenantScopedEntity } from './base.entity.js';
import { readRows, type Row } from './rows.js';
import { isUuid } from './uuid.js';

export interface ListOptions<Column extends string = string> {
  sort?: { column: Column; order?: SortOrder };
  first?: number;
  after?: string;
}

/**
 * One page of a filtered, sorted list in one statement: the total is a scalar count subquery with
 * the same conditions (PostgreSQL runs it once), so the page itself can stop after `limit` rows in
 * index order — unlike `count(*) over()`, which materialises and sorts every matching row. uuid
 * (time-ordered) breaks ties so pages never overlap. Both parts apply the default filters (tenant,
 * live rows) exactly as `em.find` would.
 */
export async function findPage<T extends TenantScopedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  filter: FilterQuery<T>,
  { sort, first, after }: ListOptions,
): Promise<Page<Row<T>>> {
  const position = decodeCursor(after);
  if (Number.isNaN(position)) throw invalid({ after: ['The after cursor is invalid.'] });
  const offset = position === undefined ? 0 : position! + 1;
  const orderBy: Record<string, string>[] = [];
  if (sort) orderBy.push({ [toCamel(sort.column)]: sort.order ?? 'asc' });
  orderBy.push({ uuid: 'asc' });
  const counting = em
    .createQueryBuilder(entity, 'counted')
    .count()
    .where(filter as never);
  const page = em
    .createQueryBuilder(entity, 'listed')
    .select('*')
    .where(filter as never)
    .orderBy(orderBy as never)
    .limit(first ?? DEFAULT_PAGE_SIZE)
    .offset(offset);
  await Promise.all([counting.applyFilters(), page.applyFilters()]);
  page.addSelect(counting.as(entity, 'listTotal' as never) as never);
  const rows = await readRows(em, entity, page as never);
  const counted = rows[0]?.listTotal;
  const total = counted !== undefined ? Number(counted) : offset === 0 ? 0 : await em.count(entity, filter);
  return { rows, total, offset };
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
