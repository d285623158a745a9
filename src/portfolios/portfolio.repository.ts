import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PortfolioItem } from './portfolio-item.entity.js';
import type { PortfolioPage } from './portfolio-page.entity.js';

/** How many live items the page holds, and the last position among them (null without items). */
export async function itemCountAndLastPosition(em: EntityManager, page: PortfolioPage): Promise<{ count: number; last: number | null }> {
  return em
    .createQueryBuilder(PortfolioItem, 'item')
    .select([raw('count(*)::int as count'), raw('max(sort_order) as last')] as never)
    .where({ page, deletedAt: null }) // a query builder applies no default filters
    .execute<{ count: number; last: number | null }>('get', false);
}
