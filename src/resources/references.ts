import type { EntityManager } from '@mikro-orm/postgresql';
import { findLiveByUuids, invalidReferences } from '../db/lookup.js';
import type { FieldErrors } from '../errors/domain-error.js';
import { type ExternalReference, resolveExternalReferences } from './external-references.js';

/** An input class (`UpdateEnrollmentInput`); its subclasses (`EnrollmentInput`) name the same records. */
type InputClass = abstract new (...args: never[]) => object;

const declared = new Map<InputClass, readonly ExternalReference[]>();

/**
 * Declares the related records an input names (`courseUuid` → a live Course of the tenant), once, for
 * the service that relates them (`relateAll`) and for the validation pass, which reports the unknown
 * ones together with the input's format errors (graphql/variable-errors.ts). Returns `references`.
 */
export function declareReferences<R extends ExternalReference>(input: InputClass, references: R[]): R[] {
  declared.set(input, references);
  return references;
}

/** The references declared for `input` or the nearest class it extends. */
export function declaredReferences(input: InputClass): readonly ExternalReference[] | undefined {
  for (let type: unknown = input; typeof type === 'function'; type = Object.getPrototypeOf(type)) {
    const references = declared.get(type as InputClass);
    if (references) return references;
  }
  return undefined;
}

/** One input naming related records, and what they are. */
export interface NamingInput {
  given: object;
  references: readonly ExternalReference[];
}

export interface ReferenceLookup {
  /** The input with every `*ExternalId` reference replaced by the uuid it names. */
  input: Record<string, unknown>;
  /** The live row of the tenant each field named (fields naming null or nothing are absent). */
  rows: Map<string, object>;
  /** Every field naming no live row of the tenant — a foreign or malformed uuid reads like a missing one. */
  errors: FieldErrors;
}

/** The records each input names, every input's uuids read in one statement (db/lookup.ts `findLiveByUuids`). */
export async function lookUpReferences(em: EntityManager, inputs: readonly NamingInput[]): Promise<ReferenceLookup[]> {
  const resolved: { input: Record<string, unknown>; errors: FieldErrors }[] = [];
  const found = new Map<string, string | null>();
  for (const { given, references } of inputs) resolved.push(await resolveExternalReferences(em, given as Record<string, unknown>, references, found));
  const requests = inputs.flatMap(({ references }, at) =>
    references.flatMap(({ entity, field }) => {
      const uuid = resolved[at]!.input[field];
      return uuid == null ? [] : [{ at, field, entity, uuid: uuid as string }];
    }),
  );
  const rows = requests.length > 0 ? await findLiveByUuids(em, requests) : [];
  return resolved.map(({ input, errors }, at) => {
    const found = new Map<string, object>();
    const missing: string[] = [];
    for (const [index, request] of requests.entries()) {
      if (request.at !== at) continue;
      const row = rows[index];
      if (row) found.set(request.field, row);
      else missing.push(request.field);
    }
    return { input, rows: found, errors: { ...errors, ...(missing.length > 0 ? invalidReferences(missing).fieldErrors : {}) } };
  });
}
