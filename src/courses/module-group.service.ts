import type { RequestContext } from '../context/request-context.js';
import { invalid } from '../errors/domain-error.js';
import { assignPresent, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { Course } from './course.entity.js';
import { CourseModule } from './course-module.entity.js';
import { ModuleGroup } from './module-group.entity.js';
import type { ModuleGroupInput } from './module-group.inputs.js';

/** Module groups: sections of one course, nested under it; they never move to another course. */
export class ModuleGroupService extends ResourceService<ModuleGroup, ModuleGroupInput> {
  protected readonly entity = ModuleGroup;
  protected readonly label = 'Module group';
  protected readonly parentField = 'course';
  protected readonly defaults: Partial<ModuleGroupInput> = { order: null, isActive: true };
  protected readonly whereColumns = { courseUuid: 'course' };
  protected readonly uuidWhereFields = ['courseUuid'];

  protected async apply(ctx: RequestContext, row: ModuleGroup, input: Partial<ModuleGroupInput>, mode: WriteMode): Promise<void> {
    if (mode === 'create') await this.relate(ctx, row, 'course', Course, input, 'courseUuid');
    else if (input.courseUuid !== undefined && input.courseUuid !== row.course.uuid) {
      throw invalid({ courseUuid: ['A module group cannot move to another course.'] });
    }
    assignPresent(row, input, ['name', 'order', 'isActive']);
  }

  /** Modules of a deleted group stay attached to the course, without a group. */
  protected async beforeDelete(ctx: RequestContext, rows: ModuleGroup[]): Promise<void> {
    await ctx.em.nativeUpdate(CourseModule, { group: { $in: rows } }, { group: null });
  }
}

export const moduleGroups = new ModuleGroupService();
