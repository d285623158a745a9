import type { RequestContext } from '../context/request-context.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { invalid } from '../errors/domain-error.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { Student } from '../students/student.entity.js';
import { CompletionStatus, Enrollment } from './enrollment.entity.js';
import type { EnrollmentInput } from './enrollment.inputs.js';

const hasAtMostTwoDecimals = (value: number) => Math.abs(Math.round(value * 100) - value * 100) < 1e-9;

/** Enrollments: the cohort must be one of the course's; grades are 0-10 with two decimals. */
export class EnrollmentService extends ResourceService<Enrollment, EnrollmentInput> {
  protected readonly entity = Enrollment;
  protected readonly label = 'Enrollment';
  protected readonly defaults: Partial<EnrollmentInput> = { cohortUuid: null, completionStatus: CompletionStatus.enrolled, grade: null, completedAt: null };
  protected readonly whereColumns = { studentUuid: 'student', courseUuid: 'course', cohortUuid: 'cohort' };
  protected readonly uuidWhereFields = ['studentUuid', 'courseUuid', 'cohortUuid'];

  protected async apply(ctx: RequestContext, row: Enrollment, input: Partial<EnrollmentInput>): Promise<void> {
    if (input.grade != null && !hasAtMostTwoDecimals(input.grade)) {
      throw invalid({ grade: ['The grade must have at most 2 decimal places.'] });
    }
    await this.relate(ctx, row, 'student', Student, input, 'studentUuid');
    await this.relate(ctx, row, 'course', Course, input, 'courseUuid');
    await this.relate(ctx, row, 'cohort', Cohort, input, 'cohortUuid');
    assignPresent(row, input, ['completionStatus', 'grade', 'enrolledAt', 'completedAt']);
    if (row.cohort) {
      const cohort = await ctx.em.findOneOrFail(Cohort, { uuid: row.cohort.uuid }, { filters: { live: false } });
      if (cohort.course.uuid !== row.course.uuid) {
        throw invalid({ cohortUuid: ['The selected cohort does not belong to the enrollment’s course.'] });
      }
    }
    if (row.completedAt && row.completedAt < row.enrolledAt) {
      throw invalid({ completedAt: ['The completed at must be a date after or equal to the enrolled at.'] });
    }
  }
}

export const enrollments = new EnrollmentService();
