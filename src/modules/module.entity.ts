import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TenantScopedEntity } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Node } from '../graphql/node.js';

export enum ModuleModality {
  in_person = 'in_person',
  online = 'online',
  hybrid = 'hybrid',
}
registerEnumType(ModuleModality, { name: 'ModuleModality' });

export enum ModuleLevel {
  undergraduate = 'undergraduate',
  graduate = 'graduate',
  technical = 'technical',
  open = 'open',
}
registerEnumType(ModuleLevel, { name: 'ModuleLevel' });

/** A subject an institution teaches; attached to courses through CourseModule. */
@ObjectType({ simpleResolvers: true, implements: Node })
@Entity({ tableName: 'modules' })
@Index({
  name: 'modules_code_unique',
  expression: 'create unique index "modules_code_unique" on "modules" ("institution_uuid", lower("code")) where "deleted_at" is null and "code" is not null',
})
export class Module extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true, index: true })
  institution!: Ref<Institution>;

  @Field(() => String, { nullable: true, description: 'Unique per institution (case-insensitive), max 20.' })
  @Property({ length: 20, nullable: true })
  code?: string | null;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  syllabus?: string | null;

  @Field(() => Int, { nullable: true, description: 'Total hours.' })
  @Property({ type: 'integer', nullable: true })
  workload?: number | null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  credits?: number | null;

  @Field(() => ModuleModality, { nullable: true })
  @Enum({ items: () => ModuleModality, nativeEnumName: 'module_modality', nullable: true })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true })
  @Enum({ items: () => ModuleLevel, nativeEnumName: 'module_level', nullable: true })
  level?: ModuleLevel | null;

  @Field(() => Boolean)
  @Property({ type: 'boolean' })
  isActive: boolean & Opt = true;

  @Field(() => Boolean, { description: 'Mandatory in its course.' })
  @Property({ type: 'boolean' })
  isRequired: boolean & Opt = false;
}
