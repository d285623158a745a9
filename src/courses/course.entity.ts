import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { externalIdIndex, ExternallyIdentifiedEntity, LiveFilterIndexes, liveListIndex } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Node } from '../graphql/node.js';

/** A programme of an institution; its modules are attached in groups and order (CourseModule). */
@ObjectType({ simpleResolvers: true, implements: Node, description: 'A programme an institution offers; certificates are issued for completing it.' })
@Entity({ tableName: 'courses' })
@Index(liveListIndex('courses'))
@Index(externalIdIndex('courses'))
@LiveFilterIndexes('courses', ['name', 'code', 'workload', 'created_at', 'updated_at'])
export class Course extends ExternallyIdentifiedEntity {
  @ManyToOne(() => Institution, { ref: true, index: true })
  institution!: Ref<Institution>;

  @Field({ description: 'Course name, printed on certificates.' })
  @Property({ length: 255 })
  name!: string;

  @Field(() => String, { nullable: true, description: "The institution's own course code." })
  @Property({ length: 50, nullable: true })
  code?: string | null;

  @Field(() => String, { nullable: true, description: 'Free-text description.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => Int, { nullable: true, description: 'Total hours.' })
  @Property({ type: 'integer', nullable: true })
  workload?: number | null;

  @Field(() => Boolean, { description: 'Whether new enrollments and certificates are expected.' })
  @Property({ type: 'boolean' })
  isActive: boolean & Opt = true;
}
