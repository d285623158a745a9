import { Field, Float, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { AtLeast, AtMost, Decimals, NotNull, Nullable, OnOrAfter, Present, RequiredWithoutAll } from '../graphql/validators.js';
import { ExternalIdInput } from '../resources/external-id.js';
import { CompletionStatus } from './enrollment.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateEnrollmentInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the enrolled student.' })
  @NotNull()
  studentUuid?: string;

  @ExternalIdInput('The student by their external id, instead of `studentUuid`.')
  studentExternalId?: string | null;

  @Field(() => ID, { nullable: true, description: 'The uuid of the course enrolled in.' })
  @NotNull()
  courseUuid?: string;

  @ExternalIdInput('The course by its external id, instead of `courseUuid`.')
  courseExternalId?: string | null;

  @Field(() => ID, { nullable: true, description: 'A cohort of the enrollment’s course.' })
  cohortUuid?: string | null;

  @Field(() => CompletionStatus, { nullable: true, description: 'Default `enrolled`.' })
  @Present()
  completionStatus?: CompletionStatus;

  @Field(() => Float, { nullable: true, description: '0 to 10, at most two decimals.' })
  @Nullable()
  @AtLeast(0)
  @AtMost(10)
  @Decimals(2)
  grade?: number | null;

  @Field(() => Date, { nullable: true, description: 'A date, `YYYY-MM-DD`.' })
  @Present()
  enrolledAt?: Date;

  @Field(() => Date, { nullable: true, description: 'A date, `YYYY-MM-DD`.' })
  @OnOrAfter('enrolledAt')
  completedAt?: Date | null;
}

@InputType({ description: 'Every field of an enrollment: create and PUT.' })
export class EnrollmentInput extends UpdateEnrollmentInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the enrolled student; required unless `studentExternalId` is given.' })
  @RequiredWithoutAll(['studentExternalId'])
  declare studentUuid?: string;

  @Field(() => ID, { nullable: true, description: 'The uuid of the course enrolled in; required unless `courseExternalId` is given.' })
  @RequiredWithoutAll(['courseExternalId'])
  declare courseUuid?: string;

  @Field(() => Date, { description: 'When the student enrolled.' })
  declare enrolledAt: Date;
}

@InputType({ description: 'Equality filters on enrollments.' })
export class EnrollmentWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose student uuid equals this.' })
  studentUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose course uuid equals this.' })
  courseUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose cohort uuid equals this.' })
  cohortUuid?: string | null;

  @Field(() => CompletionStatus, { nullable: true, description: 'Only records whose completion status equals this.' })
  completionStatus?: CompletionStatus;
}

export const EnrollmentListArgs = ListArgsType('Enrollment', EnrollmentWhere, [
  'enrolled_at',
  'completed_at',
  'grade',
  'completion_status',
  'created_at',
  'updated_at',
]);
