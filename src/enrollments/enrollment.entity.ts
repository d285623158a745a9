import { DecimalType, type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Float, ObjectType, registerEnumType } from 'type-graphql';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { LiveFilterIndexes, liveListIndex, liveSortIndex, TenantScopedEntity } from '../db/base.entity.js';
import { Student } from '../students/student.entity.js';
import { Node } from '../graphql/node.js';

export enum CompletionStatus {
  enrolled = 'enrolled',
  completed = 'completed',
  dropped = 'dropped',
}
registerEnumType(CompletionStatus, {
  name: 'CompletionStatus',
  description: 'Where a student is in a course.',
  valuesConfig: {
    enrolled: { description: 'Studying.' },
    completed: { description: 'Finished the course.' },
    dropped: { description: 'Left without finishing.' },
  },
});

/** A student's registration in a course (optionally in one of its cohorts), with the final grade. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: "A student's registration in a course (optionally in one of its cohorts), with the final grade.",
})
@Entity({ tableName: 'enrollments' })
@Index(liveListIndex('enrollments'))
@Index(liveSortIndex('enrollments_growth_created_index', 'enrollments', ['tenant_uuid', 'created_at', 'uuid']))
@Index(liveSortIndex('enrollments_growth_course_created_index', 'enrollments', ['tenant_uuid', 'course_uuid', 'created_at', 'uuid']))
@Index(liveSortIndex('enrollments_growth_course_index', 'enrollments', ['tenant_uuid', 'course_uuid', 'uuid']))
@Index(liveSortIndex('enrollments_growth_status_index', 'enrollments', ['tenant_uuid', 'completion_status', 'uuid']))
@LiveFilterIndexes('enrollments', ['grade', 'enrolled_at', 'completed_at', 'updated_at'])
export class Enrollment extends TenantScopedEntity {
  @ManyToOne(() => Student, { ref: true, index: true })
  student!: Ref<Student>;

  @ManyToOne(() => Course, { ref: true, index: true })
  course!: Ref<Course>;

  @ManyToOne(() => Cohort, { ref: true, nullable: true, index: true })
  cohort?: Ref<Cohort> | null;

  @Field(() => CompletionStatus, { description: 'Where the student is in the course.' })
  @Enum({ items: () => CompletionStatus, nativeEnumName: 'completion_status' })
  completionStatus: CompletionStatus & Opt = CompletionStatus.enrolled;

  @Field(() => Float, { nullable: true, description: 'Final grade, 0 to 10, two decimals.' })
  @Property({ type: new DecimalType('number'), precision: 4, scale: 2, nullable: true })
  grade?: number | null;

  @Field(() => Date, { description: 'When the student enrolled.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  enrolledAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the student completed the course, if they did.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  completedAt?: Date | null;
}
