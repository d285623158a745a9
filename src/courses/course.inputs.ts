import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { AtLeast, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { EXTERNAL_ID_DESCRIPTION, ExternalIdFilter, ExternalIdInput } from '../resources/external-id.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCourseInput {
  @ExternalIdInput(EXTERNAL_ID_DESCRIPTION)
  externalId?: string | null;

  @Field(() => ID, { nullable: true, description: 'The uuid of the institution offering the course.' })
  @Present()
  institutionUuid?: string;

  @Field({ nullable: true, description: 'Course name, printed on certificates.' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field(() => String, { nullable: true, description: "The institution's own course code." })
  @Nullable()
  @MaxChars(50)
  code?: string | null;

  @Field(() => String, { nullable: true, description: 'Free-text description.' })
  @Nullable()
  @MaxChars(65535)
  description?: string | null;

  @Field(() => Int, { nullable: true, description: 'Total hours.' })
  @Nullable()
  @AtLeast(0)
  workload?: number | null;

  @Field({ nullable: true, description: 'Default `true`.' })
  @Present()
  isActive?: boolean;
}

@InputType({ description: 'Every field of a course: create and PUT.' })
export class CourseInput extends UpdateCourseInput {
  @Field(() => ID, { description: 'The uuid of the institution offering the course.' })
  declare institutionUuid: string;

  @Field({ description: 'Course name, printed on certificates.' })
  declare name: string;
}

@InputType({ description: 'Equality filters on courses.' })
export class CourseWhere {
  @ExternalIdFilter()
  externalId?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose institution uuid equals this.' })
  institutionUuid?: string;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;

  @Field(() => String, { nullable: true, description: 'Only records whose code equals this.' })
  code?: string | null;

  @Field({ nullable: true, description: 'Only records whose is active equals this.' })
  isActive?: boolean;
}

export const CourseListArgs = ListArgsType('Course', CourseWhere, ['name', 'code', 'workload', 'created_at', 'updated_at']);

@InputType({ description: 'One module to attach, optionally in a group of the course and at a position.' })
export class ModuleAttachmentInput {
  @Field(() => ID, { description: 'The uuid of a module of the course’s institution.' })
  moduleUuid!: string;

  @Field(() => ID, { nullable: true, description: 'A module group of this course.' })
  courseModuleGroupUuid?: string | null;

  @Field(() => Int, { nullable: true, description: 'Position in its group; default: after the last.' })
  @Nullable()
  @AtLeast(0)
  order?: number | null;
}
