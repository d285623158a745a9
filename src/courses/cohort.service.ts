import type { RequestContext } from '../context/request-context.js';
import { ensureUnique } from '../db/lookup.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { invalid } from '../errors/domain-error.js';
import { isOnOrAfter, onOrAfterMessage } from '../graphql/validators.js';
import { declareReferences } from '../resources/references.js';
import { assignPresent, type Relation, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { Cohort } from './cohort.entity.js';
import { type CohortInput, UpdateCohortInput } from './cohort.inputs.js';
import { Course } from './course.entity.js';

/** The course a cohort belongs to. */
const RELATIONS = declareReferences<Relation<Cohort, CohortInput>>(UpdateCohortInput, [{ property: 'course', entity: Course, field: 'courseUuid' }]);

/** Cohorts: the code is unique within the course; the dates are in order. */
export class CohortService extends ResourceService<Cohort, CohortInput> {
  protected readonly entity = Cohort;
  protected readonly label = 'Cohort';
  protected readonly defaults: Partial<CohortInput> = { modality: null, startDate: null, endDate: null };
  protected readonly whereColumns = { courseUuid: 'course' };
  protected readonly uuidWhereFields = ['courseUuid'];
  protected readonly uniqueViolations = { cohorts_code_unique: { code: ['The code has already been taken.'] } };

  protected async apply(ctx: RequestContext, row: Cohort, input: Partial<CohortInput>, mode: WriteMode): Promise<void> {
    const before = mode === 'create' ? undefined : row.course?.uuid;
    await this.relateAll(ctx, row, input, RELATIONS);
    if (before && row.course.uuid !== before && (await ctx.em.count(Enrollment, { cohort: row }))) {
      throw invalid({ courseUuid: ['A cohort with enrollments cannot move to another course.'] });
    }
    assignPresent(row, input, ['code', 'modality', 'startDate', 'endDate']);
    if (row.startDate && row.endDate && !isOnOrAfter(row.endDate, row.startDate)) {
      throw invalid({ endDate: [onOrAfterMessage('endDate', 'startDate')] });
    }
    await ensureUnique(ctx.em, Cohort, { course: row.course, code: { $ilike: row.code.replace(/[\\%_]/g, '\\$&') } }, row.uuid, 'code');
  }
}

export const cohorts = new CohortService();
