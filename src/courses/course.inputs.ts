import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { AtLeast, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCourseInput {
  @Field(() => ID, { nullable: true })
  @Present()
  institutionUuid?: string;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(50)
  code?: string | null;

  @Field(() => String, { nullable: true })
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
  @Field(() => ID)
  declare institutionUuid: string;

  @Field()
  declare name: string;
}

@InputType()
export class CourseWhere {
  @Field(() => ID, { nullable: true })
  institutionUuid?: string;

  @Field({ nullable: true })
  name?: string;

  @Field(() => String, { nullable: true })
  code?: string | null;

  @Field({ nullable: true })
  isActive?: boolean;
}

export const CourseListArgs = ListArgsType('Course', CourseWhere, ['name', 'code', 'workload', 'created_at', 'updated_at']);

@InputType({ description: 'One module to attach, optionally in a group of the course and at a position.' })
export class ModuleAttachmentInput {
  @Field(() => ID)
  moduleUuid!: string;

  @Field(() => ID, { nullable: true, description: 'A module group of this course.' })
  courseModuleGroupUuid?: string | null;

  @Field(() => Int, { nullable: true, description: 'Position in its group; default: after the last.' })
  @Nullable()
  @AtLeast(0)
  order?: number | null;
}
