import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, FieldResolver, Info, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { RequestContext } from '../context/request-context.js';
import { Certificate } from '../certificates/certificate.entity.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { type Connection, ConnectionType, RelationPageArgs } from '../graphql/connection.js';
import { relationConnection } from '../graphql/relation-connection.js';
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
  @FieldResolver(() => ConnectionType(Enrollment, 'Enrollment'), {
    description:
      'The student’s enrollments, a page at a time in uuid (creation) order; the same rows as `enrollments(where: {studentUuid})`, whose cursors page them too.',
  })
  enrollments(
    @Root() student: Readable<Student>,
    @Args() args: RelationPageArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Row<Enrollment>>> {
    return relationConnection(ctx, info, Enrollment, 'student', student.uuid, args);
  }

  @FieldResolver(() => ConnectionType(Certificate, 'Certificate'), {
    description:
      'The student’s certificates (drafts too), a page at a time in uuid (creation) order; the same rows as `certificates(where: {studentUuid})`, whose cursors page them too.',
  })
  certificates(
    @Root() student: Readable<Student>,
    @Args() args: RelationPageArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Row<Certificate>>> {
    return relationConnection(ctx, info, Certificate, 'student', student.uuid, args);
  }
}
