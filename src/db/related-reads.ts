import { type EntityClass, type EntityMetadata, ReferenceKind } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readableAsJson } from './rows-by-uuid.js';
import { isTenantScoped } from './tenant-scope.js';

/** A many-to-one whose row a read brings along (db/page-statement.ts), so its field needs no batch of its own. */
export interface RelatedRead {
  /** The relation's property on the read entity (`student` of an Enrollment). */
  property: string;
  /** Its column (`student_uuid`). */
  column: string;
  entity: EntityClass<object>;
}

/**
 * The many-to-ones among `names` (fields an operation selects) that a row statement can bring along:
 * a relation of a tenant-scoped entity to a tenant-scoped entity whose rows read back as JSON, so the
 * related row is read in the same tenant, as the batched loader would read it.
 */
export function relatedReads(em: EntityManager, entity: EntityClass<object>, names: Iterable<string>): RelatedRead[] {
  if (!isTenantScoped(entity)) return [];
  const meta = em.getMetadata().get(entity) as EntityMetadata<object>;
  const reads: RelatedRead[] = [];
  for (const name of names) {
    const prop = meta.properties[name as keyof object] as EntityMetadata<object>['props'][number] | undefined;
    if (!prop || prop.kind !== ReferenceKind.MANY_TO_ONE || prop.fieldNames?.length !== 1) continue;
    const target = prop.targetMeta?.class as EntityClass<object> | undefined;
    if (!target || !isTenantScoped(target) || !readableAsJson(em, target)) continue;
    reads.push({ property: name, column: prop.fieldNames[0]!, entity: target });
  }
  return reads;
}
