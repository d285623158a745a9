import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { AtLeast, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { ModuleLevel, ModuleModality } from './module.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateModuleInput {
  @Field(() => ID, { nullable: true })
  @Present()
  institutionUuid?: string;

  @Field(() => String, { nullable: true, description: 'Unique per institution, max 20.' })
  @Nullable()
  @MaxChars(20)
  code?: string | null;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(150)
  name?: string;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(2000)
  description?: string | null;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(65535)
  syllabus?: string | null;

  @Field(() => Int, { nullable: true })
  @Nullable()
  @AtLeast(0)
  workload?: number | null;

  @Field(() => Int, { nullable: true })
  @Nullable()
  @AtLeast(0)
  credits?: number | null;

  @Field(() => ModuleModality, { nullable: true })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true })
  level?: ModuleLevel | null;

  @Field({ nullable: true, description: 'Default `true`.' })
  @Present()
  isActive?: boolean;

  @Field({ nullable: true, description: 'Default `false`.' })
  @Present()
  isRequired?: boolean;
}

@InputType({ description: 'Every field of a module: create and PUT.' })
export class ModuleInput extends UpdateModuleInput {
  @Field(() => ID)
  declare institutionUuid: string;

  @Field()
  declare name: string;
}

@InputType()
export class ModuleWhere {
  @Field(() => ID, { nullable: true })
  institutionUuid?: string;

  @Field(() => String, { nullable: true })
  code?: string | null;

  @Field({ nullable: true })
  name?: string;

  @Field(() => ModuleModality, { nullable: true })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true })
  level?: ModuleLevel | null;

  @Field({ nullable: true })
  isActive?: boolean;

  @Field({ nullable: true })
  isRequired?: boolean;
}

export const ModuleListArgs = ListArgsType('Module', ModuleWhere, ['name', 'code', 'workload', 'credits', 'level', 'created_at', 'updated_at']);
