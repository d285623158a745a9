import { ref } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { findOrFail } from '../db/lookup.js';
import { isUuid } from '../db/uuid.js';
import { invalid, type FieldErrors } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { Module } from '../modules/module.entity.js';
import { declareReferences } from '../resources/references.js';
import { assignPresent, type Relation, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { externalIdViolation } from '../resources/external-id.js';
import { CourseModule } from './course-module.entity.js';
import { Course } from './course.entity.js';
import { type CourseInput, type ModuleAttachmentInput, UpdateCourseInput } from './course.inputs.js';
import { ModuleGroup } from './module-group.entity.js';

/** The institution a course belongs to. */
const RELATIONS = declareReferences<Relation<Course, CourseInput>>(UpdateCourseInput, [
  { property: 'institution', entity: Institution, field: 'institutionUuid' },
]);

/** Courses, and which modules they teach: attached in groups of the course, at positions. */
export class CourseService extends ResourceService<Course, CourseInput> {
  protected readonly entity = Course;
  protected readonly label = 'Course';
  protected readonly defaults: Partial<CourseInput> = { code: null, description: null, workload: null, isActive: true, externalId: null };
  protected readonly uniqueViolations = externalIdViolation('courses');
  protected readonly whereColumns = { institutionUuid: 'institution' };
  protected readonly uuidWhereFields = ['institutionUuid'];

  protected async apply(ctx: RequestContext, row: Course, input: Partial<CourseInput>, mode: WriteMode): Promise<void> {
    const before = mode === 'create' ? undefined : row.institution?.uuid;
    await this.relateAll(ctx, row, input, RELATIONS);
    if (before && row.institution.uuid !== before && (await ctx.em.count(CourseModule, { course: row }))) {
      throw invalid({ institutionUuid: ['A course with attached modules cannot move to another institution.'] });
    }
    assignPresent(row, input, ['name', 'code', 'description', 'workload', 'isActive']);
    await this.applyExternalId(ctx, row, input);
  }

  /**
   * Attaches modules of the course's institution, each in one of the course's groups (or none) at a
   * position (default: after the last of its group). Attaching an attached module moves it. All or nothing.
   */
  attachModules(ctx: RequestContext, courseUuid: string, attachments: ModuleAttachmentInput[]): Promise<Course> {
    if (attachments.length === 0) throw invalid({ modules: ['The modules field must contain at least one module.'] });
    return this.write(ctx, async (tx) => {
      const course = await findOrFail(tx.em, Course, courseUuid, 'Course');
      const modules = await this.byUuid(
        tx,
        Module,
        attachments.map((item) => item.moduleUuid),
      );
      const groups = await this.byUuid(
        tx,
        ModuleGroup,
        attachments.flatMap((item) => item.courseModuleGroupUuid ?? []),
      );
      const errors: FieldErrors = {};
      attachments.forEach((item, index) => {
        const module = modules.get(item.moduleUuid);
        if (!module) errors[`modules.${index}.moduleUuid`] = ['The selected module uuid is invalid.'];
        else if (module.institution.uuid !== course.institution.uuid) errors[`modules.${index}.moduleUuid`] = ['The module belongs to another institution.'];
        const groupUuid = item.courseModuleGroupUuid;
        if (groupUuid && groups.get(groupUuid)?.course.uuid !== course.uuid) {
          errors[`modules.${index}.courseModuleGroupUuid`] = ['The selected course module group uuid is invalid.'];
        }
      });
      if (Object.keys(errors).length > 0) throw invalid(errors);

      const attached = new Map((await tx.em.find(CourseModule, { course })).map((row) => [row.module.uuid, row]));
      const nextOrder = new Map<string, number>();
      for (const row of attached.values()) {
        const key = row.group?.uuid ?? '';
        nextOrder.set(key, Math.max(nextOrder.get(key) ?? 0, row.order + 1));
      }
      for (const item of attachments) {
        const group = item.courseModuleGroupUuid ? groups.get(item.courseModuleGroupUuid)! : null;
        const key = group?.uuid ?? '';
        const order = item.order ?? nextOrder.get(key) ?? 1;
        nextOrder.set(key, Math.max(nextOrder.get(key) ?? 1, order + 1));
        const row = attached.get(item.moduleUuid) ?? tx.em.create(CourseModule, { course, module: modules.get(item.moduleUuid)!, order });
        row.group = group ? ref(group) : null;
        row.order = order;
      }
      return course;
    });
  }

  /** Detaches attached modules; a uuid that is not attached to the course is a 422 and nothing changes. */
  detachModules(ctx: RequestContext, courseUuid: string, moduleUuids: string[]): Promise<Course> {
    if (moduleUuids.length === 0) throw invalid({ moduleUuids: ['The module uuids field must contain at least one uuid.'] });
    return this.write(ctx, async (tx) => {
      const course = await findOrFail(tx.em, Course, courseUuid, 'Course');
      const valid = moduleUuids.filter(isUuid);
      const rows = valid.length ? await tx.em.find(CourseModule, { course, module: { $in: valid } }) : [];
      const attached = new Set(rows.map((row) => row.module.uuid));
      const missing = moduleUuids.filter((uuid) => !attached.has(uuid));
      if (missing.length > 0) throw invalid({ moduleUuids: [`These modules are not attached to the course: ${missing.join(', ')}.`] });
      const now = new Date();
      for (const row of rows) row.deletedAt = now;
      return course;
    });
  }

  private async byUuid<R extends Module | ModuleGroup>(tx: RequestContext, entity: new () => R, uuids: string[]): Promise<Map<string, R>> {
    const valid = [...new Set(uuids.filter(isUuid))];
    const rows = valid.length ? await tx.em.find(entity as never, { uuid: { $in: valid } }) : [];
    return new Map((rows as R[]).map((row) => [row.uuid, row]));
  }
}

export const courses = new CourseService();
