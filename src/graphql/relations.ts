import type { EntityClass } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';

/** The row a many-to-one points at, through the request's batched loader (one query per batch). */
export async function loadOne<T extends object>(ctx: RequestContext, entity: EntityClass<T>, reference: { uuid: string }): Promise<T> {
  const row = await ctx.loaders.byUuid(entity).load(reference.uuid);
  if (!row) throw new Error(`${entity.name} ${reference.uuid} referenced but missing`);
  return row;
}

export function loadOptional<T extends object>(ctx: RequestContext, entity: EntityClass<T>, reference: { uuid: string } | null | undefined): Promise<T | null> {
  return reference ? ctx.loaders.byUuid(entity).load(reference.uuid) : Promise.resolve(null);
}
