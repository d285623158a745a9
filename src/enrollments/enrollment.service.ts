import type { RequestContext } from '../context/request-context.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { invalid } from '../errors/domain-error.js';
import { isOnOrAfter, onOrAfterMessage } from '../graphql/validators.js';
import { declareReferences } from '../resources/references.js';
import { assignPresent, type Relation, ResourceService } from '../resources/resource.service.js';
import { Student } from '../students/student.entity.js';
import { CompletionStatus, Enrollment } from './enrollment.entity.js';
import { type EnrollmentInput, UpdateEnrollmentInput } from './enrollment.inputs.js';

/** The parties an enrollment names: by uuid, or student and course by their external ids. */
const RELATIONS = declareReferences<Relation<Enrollment, EnrollmentInput>>(UpdateEnrollmentInput, [
  { property: 'student', entity: Student, field: 'studentUuid', externalField: 'studentExternalId' },
  { property: 'course', entity: Course, field: 'courseUuid', externalField: 'courseExternalId' },
  { property: 'cohort', entity: Cohort, field: 'cohortUuid' },
]);

/** Enrollments: the cohort must be one of the course's; grades are 0-10 with two decimals. */
export class EnrollmentService extends ResourceService<Enrollment, EnrollmentInput> {
  protected readonly entity = Enrollment;
  protected readonly label = 'Enrollment';
  protected readonly defaults: Partial<EnrollmentInput> = { cohortUuid: null, completionStatus: CompletionStatus.enrolled, grade: null, completedAt: null };
  protected readonly whereColumns = { studentUuid: 'student', courseUuid: 'course', cohortUuid: 'cohort' };
  protected readonly uuidWhereFields = ['studentUuid', 'courseUuid', 'cohortUuid'];

  protected async apply(ctx: RequestContext, row: Enrollment, input: Partial<EnrollmentInput>): Promise<void> {
    await this.relateAll(ctx, row, input, RELATIONS);
    assignPresent(row, input, ['completionStatus', 'grade', 'enrolledAt', 'completedAt']);
    if (row.cohort) {
      const cohort = await ctx.em.findOneOrFail(Cohort, { uuid: row.cohort.uuid }, { filters: { live: false } });
      if (cohort.course.uuid !== row.course.uuid) {
        throw invalid({ cohortUuid: ['The selected cohort does not belong to the enrollment’s course.'] });
      }
    }
    if (row.completedAt && !isOnOrAfter(row.completedAt, row.enrolledAt)) {
      throw invalid({ completedAt: [onOrAfterMessage('completedAt', 'enrolledAt')] });
    }
  }
}

export const enrollments = new EnrollmentService();
