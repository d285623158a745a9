import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { MaxChars, NotBlank, OnOrAfter, Present } from '../graphql/validators.js';
import { CohortModality } from './cohort.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCohortInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the course this cohort belongs to.' })
  @Present()
  courseUuid?: string;

  @Field({ nullable: true, description: 'Unique within the course.' })
  @Present()
  @NotBlank()
  @MaxChars(50)
  code?: string;

  @Field(() => CohortModality, { nullable: true, description: 'How the cohort is taught.' })
  modality?: CohortModality | null;

  @Field(() => Date, { nullable: true, description: '`YYYY-MM-DD` or a full timestamp.' })
  startDate?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Expected graduation; not before startDate.' })
  @OnOrAfter('startDate')
  endDate?: Date | null;
}

@InputType({ description: 'Every field of a cohort: create and PUT.' })
export class CohortInput extends UpdateCohortInput {
  @Field(() => ID, { description: 'The uuid of the course this cohort belongs to.' })
  declare courseUuid: string;

  @Field({ description: 'Cohort code, unique within the course.' })
  declare code: string;
}

@InputType({ description: 'Equality filters on cohorts.' })
export class CohortWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose course uuid equals this.' })
  courseUuid?: string;

  @Field({ nullable: true, description: 'Only records whose code equals this.' })
  code?: string;

  @Field(() => CohortModality, { nullable: true, description: 'Only records whose modality equals this.' })
  modality?: CohortModality | null;
}

export const CohortListArgs = ListArgsType('Cohort', CohortWhere, ['code', 'start_date', 'end_date', 'created_at', 'updated_at']);
