import { Field } from 'type-graphql';
import { MaxChars, NotBlank, Nullable } from '../graphql/validators.js';

/** The longest integrator identifier accepted (`external_id` and the `*_external_id` references). */
export const EXTERNAL_ID_MAX_CHARS = 255;

function applyAll(decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}

/** An input field holding an integrator's own identifier: `externalId` itself or a reference such as `courseExternalId`. */
export const ExternalIdInput = (description: string): PropertyDecorator =>
  applyAll([Field(() => String, { nullable: true, description }), Nullable(), NotBlank(), MaxChars(EXTERNAL_ID_MAX_CHARS)]);

export const EXTERNAL_ID_DESCRIPTION = 'The integrator’s own identifier (at most 255 characters), unique within the tenant for this resource; null clears it.';

/** The `externalId` equality filter of a list's `where`. */
export const ExternalIdFilter = (): PropertyDecorator => Field(() => String, { nullable: true, description: 'Only the record with this external id.' });

/** The 422 a race past `applyExternalId`'s check meets at the table's unique index (resource.service.ts `uniqueViolations`). */
export const externalIdViolation = (table: string) => ({ [`${table}_external_id_unique`]: { externalId: ['The external id has already been taken.'] } });
