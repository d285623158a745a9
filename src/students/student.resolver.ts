import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { RequestContext } from '../context/request-context.js';
import { Certificate } from '../certificates/certificate.entity.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { ConnectionType, RelationArgs } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Student } from './student.entity.js';
import { StudentInput, StudentListArgs, UpdateStudentInput } from './student.inputs.js';
import { students } from './student.service.js';

@Resolver(() => Student)
export class StudentResolver extends ResourceResolver({
  name: 'Student',
  pluralName: 'Students',
  type: Student,
  connection: ConnectionType(Student, 'Student'),
  listArgs: StudentListArgs,
  input: StudentInput,
  updateInput: UpdateStudentInput,
  service: students,
  replaceable: false,
}) {
  @FieldResolver(() => [Enrollment], { description: 'The first enrollments by uuid; `enrollments(where: {studentUuid})` pages through all.' })
  enrollments(@Root() student: Readable<Student>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<Enrollment>[]> {
    return ctx.loaders.manyBy(Enrollment, 'student', first).load(student.uuid);
  }

  @FieldResolver(() => [Certificate], { description: 'The first certificates (drafts too) by uuid; `certificates(where: {studentUuid})` pages through all.' })
  certificates(@Root() student: Readable<Student>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<Certificate>[]> {
    return ctx.loaders.manyBy(Certificate, 'student', first).load(student.uuid);
  }
}
