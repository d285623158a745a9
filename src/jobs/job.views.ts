import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { FieldErrors } from '../errors/domain-error.js';

@ObjectType({ description: 'The messages of one input field, keyed as in `extensions.errors`.' })
export class FieldErrorEntry {
  @Field({ description: 'The field, e.g. `studentUuid`.' })
  field!: string;

  @Field(() => [String], { description: 'What is wrong with the field, in the API’s wording.' })
  messages!: string[];
}

@ObjectType({ description: 'Why one item of a job failed.' })
export class JobItemError {
  @Field({ description: 'The error code, as in `extensions.code` (`BAD_USER_INPUT`, `CONFLICT`, ...).' })
  code!: string;

  @Field({ description: 'What went wrong, as the single create would answer.' })
  message!: string;

  @Field(() => [FieldErrorEntry], { description: 'Per-field messages of a validation failure; empty otherwise.' })
  errors!: FieldErrorEntry[];

  @Field(() => String, { nullable: true, description: 'A machine-readable why, when there is one (`FILE_ALREADY_USED`).' })
  reason?: string | null;
}

@ObjectType({ description: 'What came of one item of a job.' })
export class JobItemResult {
  @Field(() => Int, { description: 'The item’s position in the request, from 0.' })
  index!: number;

  @Field(() => ID, { nullable: true, description: 'The record created (a certificate); null when the item failed.' })
  uuid?: string | null;

  @Field({ description: 'The created record’s status (`draft`, `issued`), or `failed`.' })
  status!: string;

  @Field(() => JobItemError, { nullable: true, description: 'Why the item failed; null when it succeeded.' })
  error?: JobItemError | null;
}

/** A result as stored in the job row (JSON). */
export interface StoredItemResult {
  index: number;
  uuid: string | null;
  status: string;
  error?: { code: string; message: string; errors?: FieldErrors; reason?: string };
}

export function itemResultView(stored: StoredItemResult): JobItemResult {
  const error = stored.error && {
    code: stored.error.code,
    message: stored.error.message,
    reason: stored.error.reason ?? null,
    errors: Object.entries(stored.error.errors ?? {}).map(([field, messages]) => ({ field, messages })),
  };
  return { index: stored.index, uuid: stored.uuid, status: stored.status, error: error ?? null };
}
