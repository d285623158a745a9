import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { MaxChars, NotBlank, OnOrAfter, Present } from '../graphql/validators.js';
import { CohortModality } from './cohort.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCohortInput {
  @Field(() => ID, { nullable: true })
  @Present()
  courseUuid?: string;

  @Field({ nullable: true, description: 'Unique within the course.' })
  @Present()
  @NotBlank()
  @MaxChars(50)
  code?: string;

  @Field(() => CohortModality, { nullable: true })
  modality?: CohortModality | null;

  @Field(() => Date, { nullable: true, description: '`YYYY-MM-DD` or a full timestamp.' })
  startDate?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Expected graduation; not before startDate.' })
  @OnOrAfter('startDate')
  endDate?: Date | null;
}

@InputType({ description: 'Every field of a cohort: create and PUT.' })
export class CohortInput extends UpdateCohortInput {
  @Field(() => ID)
  declare courseUuid: string;

  @Field()
  declare code: string;
}

@InputType()
export class CohortWhere {
  @Field(() => ID, { nullable: true })
  courseUuid?: string;

  @Field({ nullable: true })
  code?: string;

  @Field(() => CohortModality, { nullable: true })
  modality?: CohortModality | null;
}

export const CohortListArgs = ListArgsType('Cohort', CohortWhere, ['code', 'start_date', 'end_date', 'created_at', 'updated_at']);
