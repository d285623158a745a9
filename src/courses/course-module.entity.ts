import { type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantScopedEntity } from '../db/base.entity.js';
import { Module } from '../modules/module.entity.js';
import { Course } from './course.entity.js';
import { ModuleGroup } from './module-group.entity.js';

/**
 * The display order of a course's attachments (module-order.ts compareAttachments) as SQL over alias
 * `ranked`, so pages are cut in that order; the uuid only makes ties deterministic. A group is read
 * even when deleted, as the `group` field shows it.
 */
export const DISPLAY_RANK = `ranked."group_uuid" is null,
  (select g."order" from "module_groups" g where g."uuid" = ranked."group_uuid") asc nulls last,
  (select g."name" from "module_groups" g where g."uuid" = ranked."group_uuid") collate "C" asc,
  ranked."order" asc, ranked."uuid" asc`;

/** A module attached to a course, in a group (or none) at a position. */
@ObjectType({ simpleResolvers: true, description: 'A module as attached to a course.' })
@Entity({ tableName: 'course_modules' })
@Index({
  name: 'course_modules_unique',
  expression: 'create unique index "course_modules_unique" on "course_modules" ("course_uuid", "module_uuid") where "deleted_at" is null',
})
export class CourseModule extends TenantScopedEntity {
  @ManyToOne(() => Course, { ref: true, index: true })
  course!: Ref<Course>;

  @ManyToOne(() => Module, { ref: true, index: true })
  module!: Ref<Module>;

  @ManyToOne(() => ModuleGroup, { ref: true, nullable: true, index: true })
  group?: Ref<ModuleGroup> | null;

  @Field(() => Int, { description: 'Position within its group.' })
  @Property({ type: 'integer' })
  order!: number;
}
