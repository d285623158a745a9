import type { EntityClass } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';

/** A many-to-one as a read row holds it (the uuid) or as an entity does (a reference). */
export type RelationValue = string | { uuid: string };

export const uuidOf = (value: RelationValue): string => (typeof value === 'string' ? value : value.uuid);

/** The row a many-to-one points at, through the request's batched loader (one query per batch). */
export async function loadOne<T extends object>(ctx: RequestContext, entity: EntityClass<T>, reference: RelationValue): Promise<T> {
  const row = await ctx.loaders.byUuid(entity).load(uuidOf(reference));
  if (!row) throw new Error(`${entity.name} ${uuidOf(reference)} referenced but missing`);
  return row;
}

export function loadOptional<T extends object>(ctx: RequestContext, entity: EntityClass<T>, reference: RelationValue | null | undefined): Promise<T | null> {
  return reference ? ctx.loaders.byUuid(entity).load(uuidOf(reference)) : Promise.resolve(null);
}
