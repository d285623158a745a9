import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { LiveFilterIndexes, TenantScopedEntity } from '../db/base.entity.js';
import { Course } from './course.entity.js';
import { Node } from '../graphql/node.js';

/** A section of a course's modules ("Core", "Electives"). */
@ObjectType({ simpleResolvers: true, implements: Node, description: "A named group of a course's modules on the transcript (a semester, a track)." })
@Entity({ tableName: 'module_groups' })
@LiveFilterIndexes('module_groups', ['name', 'order', 'created_at', 'updated_at'])
export class ModuleGroup extends TenantScopedEntity {
  @ManyToOne(() => Course, { ref: true, index: true })
  course!: Ref<Course>;

  @Field({ description: 'Group name, printed on the transcript.' })
  @Property({ length: 255 })
  name!: string;

  @Field(() => Int, { nullable: true, description: 'Display order within the course.' })
  @Property({ type: 'integer', nullable: true })
  order?: number | null;

  @Field(() => Boolean, { description: 'Whether the group is still in use.' })
  @Property({ type: 'boolean' })
  isActive: boolean & Opt = true;
}
