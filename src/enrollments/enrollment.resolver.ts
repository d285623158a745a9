import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { ConnectionType } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Student } from '../students/student.entity.js';
import { Enrollment } from './enrollment.entity.js';
import { EnrollmentInput, EnrollmentListArgs, UpdateEnrollmentInput } from './enrollment.inputs.js';
import { enrollments } from './enrollment.service.js';

@Resolver(() => Enrollment)
export class EnrollmentResolver extends ResourceResolver({
  name: 'Enrollment',
  pluralName: 'Enrollments',
  type: Enrollment,
  connection: ConnectionType(Enrollment, 'Enrollment'),
  listArgs: EnrollmentListArgs,
  input: EnrollmentInput,
  updateInput: UpdateEnrollmentInput,
  service: enrollments,
}) {
  @FieldResolver(() => Student, { description: 'The enrolled student.' })
  student(@Root() enrollment: Readable<Enrollment>, @Ctx() ctx: RequestContext): Loaded<Row<Student>> {
    return ctx.loaders.one(Student, enrollment.student);
  }

  @FieldResolver(() => Course, { description: 'The course enrolled in.' })
  course(@Root() enrollment: Readable<Enrollment>, @Ctx() ctx: RequestContext): Loaded<Row<Course>> {
    return ctx.loaders.one(Course, enrollment.course);
  }

  @FieldResolver(() => Cohort, { nullable: true, description: 'The cohort, if any.' })
  cohort(@Root() enrollment: Readable<Enrollment>, @Ctx() ctx: RequestContext): Loaded<Row<Cohort> | null> {
    return ctx.loaders.optional(Cohort, enrollment.cohort);
  }
}
