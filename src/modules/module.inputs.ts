import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { AtLeast, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { ModuleLevel, ModuleModality } from './module.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateModuleInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the institution that teaches the module.' })
  @Present()
  institutionUuid?: string;

  @Field(() => String, { nullable: true, description: 'Unique per institution, max 20.' })
  @Nullable()
  @MaxChars(20)
  code?: string | null;

  @Field({ nullable: true, description: 'Module name, printed on transcripts.' })
  @Present()
  @NotBlank()
  @MaxChars(150)
  name?: string;

  @Field(() => String, { nullable: true, description: 'Free-text description.' })
  @Nullable()
  @MaxChars(2000)
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'Topics covered.' })
  @Nullable()
  @MaxChars(65535)
  syllabus?: string | null;

  @Field(() => Int, { nullable: true, description: 'Total hours.' })
  @Nullable()
  @AtLeast(0)
  workload?: number | null;

  @Field(() => Int, { nullable: true, description: 'Academic credits.' })
  @Nullable()
  @AtLeast(0)
  credits?: number | null;

  @Field(() => ModuleModality, { nullable: true, description: 'How the module is taught.' })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true, description: 'Academic level.' })
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
  @Field(() => ID, { description: 'The uuid of the institution that teaches the module.' })
  declare institutionUuid: string;

  @Field({ description: 'Module name, printed on transcripts.' })
  declare name: string;
}

@InputType({ description: 'Equality filters on modules.' })
export class ModuleWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose institution uuid equals this.' })
  institutionUuid?: string;

  @Field(() => String, { nullable: true, description: 'Only records whose code equals this.' })
  code?: string | null;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;

  @Field(() => ModuleModality, { nullable: true, description: 'Only records whose modality equals this.' })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true, description: 'Only records whose level equals this.' })
  level?: ModuleLevel | null;

  @Field({ nullable: true, description: 'Only records whose is active equals this.' })
  isActive?: boolean;

  @Field({ nullable: true, description: 'Only records whose is required equals this.' })
  isRequired?: boolean;
}

export const ModuleListArgs = ListArgsType('Module', ModuleWhere, ['name', 'code', 'workload', 'credits', 'level', 'created_at', 'updated_at']);
