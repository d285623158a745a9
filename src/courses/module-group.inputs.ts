import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateModuleGroupInput {
  @Field({ nullable: true })
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

  @Field()
  declare name: string;
}

@InputType()
export class ModuleGroupWhere {
  @Field(() => ID, { nullable: true })
  courseUuid?: string;

  @Field({ nullable: true })
  name?: string;

  @Field({ nullable: true })
  isActive?: boolean;
}

export const ModuleGroupListArgs = ListArgsType('ModuleGroup', ModuleGroupWhere, ['name', 'order', 'created_at', 'updated_at']);
