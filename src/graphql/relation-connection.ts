import type { EntityClass } from '@mikro-orm/core';
import type { GraphQLResolveInfo } from 'graphql';
import type { RequestContext } from '../context/request-context.js';
import { DEFAULT_PAGE_SIZE } from '../db/paging.js';
import { uuidOrderBound } from '../db/listing.js';
import type { Row } from '../db/rows.js';
import { asksForTotal, type Connection, type RelationPageArgs, toConnection } from './connection.js';

/**
 * A one-to-many as a connection (`Student.certificates`): the parent's page of live rows of the
 * request's tenant in uuid order, read with every other parent's page of the same field in one
 * statement (`Loaders.pageBy`), and its total, when selected, in one more (`Loaders.countBy`).
 */
export async function relationConnection<T extends object>(
  ctx: Pick<RequestContext, 'loaders'>,
  info: GraphQLResolveInfo,
  entity: EntityClass<T>,
  foreignKey: keyof T & string,
  parentUuid: string,
  { first, after }: RelationPageArgs,
): Promise<Connection<Row<T>>> {
  const bound = uuidOrderBound(after);
  const [page, total] = await Promise.all([
    ctx.loaders.pageBy(entity, foreignKey, first ?? DEFAULT_PAGE_SIZE, bound).load(parentUuid),
    asksForTotal(info) ? ctx.loaders.countBy(entity, foreignKey).load(parentUuid) : undefined,
  ]);
  return toConnection({ ...page, total });
}
