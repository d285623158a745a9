import { type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { LiveFilterIndexes, liveListIndex, TenantScopedEntity } from '../db/base.entity.js';
import { Course } from './course.entity.js';
import { Node } from '../graphql/node.js';

export enum CohortModality {
  presential = 'presential',
  remote = 'remote',
  hybrid = 'hybrid',
}
registerEnumType(CohortModality, {
  name: 'CohortModality',
  description: 'How a cohort is taught.',
  valuesConfig: { presential: { description: 'On site.' }, remote: { description: 'Online.' }, hybrid: { description: 'Partly on site, partly online.' } },
});

/** An intake of a course; its code is unique within the course. */
@ObjectType({ simpleResolvers: true, implements: Node, description: 'A class of a course that runs between two dates.' })
@Entity({ tableName: 'cohorts' })
@Index(liveListIndex('cohorts'))
@Index({
  name: 'cohorts_code_unique',
  expression: 'create unique index "cohorts_code_unique" on "cohorts" ("course_uuid", lower("code")) where "deleted_at" is null',
})
@LiveFilterIndexes('cohorts', ['code', 'modality', 'start_date', 'end_date', 'created_at', 'updated_at'])
export class Cohort extends TenantScopedEntity {
  @ManyToOne(() => Course, { ref: true, index: true })
  course!: Ref<Course>;

  @Field({ description: 'Cohort code, unique within the course.' })
  @Property({ length: 50 })
  code!: string;

  @Field(() => CohortModality, { nullable: true, description: 'How the cohort is taught.' })
  @Enum({ items: () => CohortModality, nativeEnumName: 'cohort_modality', nullable: true })
  modality?: CohortModality | null;

  @Field(() => Date, { nullable: true, description: 'When the cohort starts.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  startDate?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Expected graduation.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  endDate?: Date | null;
}
