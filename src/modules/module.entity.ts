import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LiveFilterIndexes, liveListIndex, TenantScopedEntity } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Node } from '../graphql/node.js';

export enum ModuleModality {
  in_person = 'in_person',
  online = 'online',
  hybrid = 'hybrid',
}
registerEnumType(ModuleModality, {
  name: 'ModuleModality',
  description: 'How a module is taught.',
  valuesConfig: { in_person: { description: 'On site.' }, online: { description: 'Online.' }, hybrid: { description: 'Partly on site, partly online.' } },
});

export enum ModuleLevel {
  undergraduate = 'undergraduate',
  graduate = 'graduate',
  technical = 'technical',
  open = 'open',
}
registerEnumType(ModuleLevel, {
  name: 'ModuleLevel',
  description: 'The academic level of a module.',
  valuesConfig: {
    undergraduate: { description: 'Undergraduate.' },
    graduate: { description: 'Graduate.' },
    technical: { description: 'Technical or vocational.' },
    open: { description: 'Open to anyone.' },
  },
});

/** A subject an institution teaches; attached to courses through CourseModule. */
@ObjectType({ simpleResolvers: true, implements: Node, description: 'A unit of study an institution teaches; courses attach modules.' })
@Entity({ tableName: 'modules' })
@Index(liveListIndex('modules'))
@Index({
  name: 'modules_code_unique',
  expression: 'create unique index "modules_code_unique" on "modules" ("institution_uuid", lower("code")) where "deleted_at" is null and "code" is not null',
})
@LiveFilterIndexes('modules', ['code', 'name', 'workload', 'credits', 'modality', 'level', 'created_at', 'updated_at'])
export class Module extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true, index: true })
  institution!: Ref<Institution>;

  @Field(() => String, { nullable: true, description: 'Unique per institution (case-insensitive), max 20.' })
  @Property({ length: 20, nullable: true })
  code?: string | null;

  @Field({ description: 'Module name, printed on transcripts.' })
  @Property({ length: 150 })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Free-text description.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'Topics covered.' })
  @Property({ type: 'text', nullable: true })
  syllabus?: string | null;

  @Field(() => Int, { nullable: true, description: 'Total hours.' })
  @Property({ type: 'integer', nullable: true })
  workload?: number | null;

  @Field(() => Int, { nullable: true, description: 'Academic credits.' })
  @Property({ type: 'integer', nullable: true })
  credits?: number | null;

  @Field(() => ModuleModality, { nullable: true, description: 'How the module is taught.' })
  @Enum({ items: () => ModuleModality, nativeEnumName: 'module_modality', nullable: true })
  modality?: ModuleModality | null;

  @Field(() => ModuleLevel, { nullable: true, description: 'Academic level.' })
  @Enum({ items: () => ModuleLevel, nativeEnumName: 'module_level', nullable: true })
  level?: ModuleLevel | null;

  @Field(() => Boolean, { description: 'Whether the module is still taught.' })
  @Property({ type: 'boolean' })
  isActive: boolean & Opt = true;

  @Field(() => Boolean, { description: 'Mandatory in its course.' })
  @Property({ type: 'boolean' })
  isRequired: boolean & Opt = false;
}
