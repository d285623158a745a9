import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScopedEntity } from '../db/base.entity.js';
import { humanize } from '../errors/humanize.js';
import type { FieldErrors } from '../errors/domain-error.js';

/** A related row an input may name by uuid (`courseUuid`) or by the integrator's identifier (`courseExternalId`). */
export interface ExternalReference {
  entity: EntityClass<TenantScopedEntity>;
  field: string;
  externalField?: string;
}

/**
 * The input with every `*ExternalId` reference replaced by the uuid of the live row of the tenant it
 * names, and the fields naming none (or naming a row both ways) as errors, for the caller to report
 * together with its other reference errors.
 */
export async function resolveExternalReferences<Input extends object>(
  em: EntityManager,
  input: Input,
  references: readonly ExternalReference[],
  /** Uuids already found for `<table>:<external id>` (or null): a batch naming one course 500 times reads it once. */
  found = new Map<string, string | null>(),
): Promise<{ input: Input; errors: FieldErrors }> {
  const resolved: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const errors: FieldErrors = {};
  for (const { entity, field, externalField } of references) {
    const externalId = externalField ? resolved[externalField] : undefined;
    if (!externalField || externalId == null) continue;
    delete resolved[externalField];
    if (resolved[field] != null) {
      errors[externalField] = [`The ${humanize(externalField)} field is prohibited when ${humanize(field)} is present.`];
      continue;
    }
    const key = `${em.getMetadata().get(entity).tableName}:${String(externalId)}`;
    if (!found.has(key)) found.set(key, (await em.findOne(entity, { externalId } as FilterQuery<TenantScopedEntity>))?.uuid ?? null);
    const uuid = found.get(key);
    if (uuid) resolved[field] = uuid;
    else errors[externalField] = [`The selected ${humanize(externalField)} is invalid.`];
  }
  return { input: resolved as Input, errors };
}
