import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateModuleGroupInput {
  @Field({ nullable: true, description: 'Group name, printed on the transcript.' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field(() => Int, { nullable: true, description: 'Display order within the course.' })
  @Nullable()
  order?: number | null;

  @Field({ nullable: true, description: 'Default `true`.' })
  @Present()
  isActive?: boolean;
}

@InputType({ description: 'Every field of a module group: create and PUT.' })
export class ModuleGroupInput extends UpdateModuleGroupInput {
  @Field(() => ID, { description: 'The course; taken from the path in REST.' })
  courseUuid!: string;

  @Field({ description: 'Group name, printed on the transcript.' })
  declare name: string;
}

@InputType({ description: 'Equality filters on module groups.' })
export class ModuleGroupWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose course uuid equals this.' })
  courseUuid?: string;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;

  @Field({ nullable: true, description: 'Only records whose is active equals this.' })
  isActive?: boolean;
}

export const ModuleGroupListArgs = ListArgsType('ModuleGroup', ModuleGroupWhere, ['name', 'order', 'created_at', 'updated_at']);
