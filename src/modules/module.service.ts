import type { RequestContext } from '../context/request-context.js';
import { CourseModule } from '../courses/course-module.entity.js';
import { ensureUnique } from '../db/lookup.js';
import { invalid } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { declareReferences } from '../resources/references.js';
import { assignPresent, type Relation, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { Module } from './module.entity.js';
import { type ModuleInput, UpdateModuleInput } from './module.inputs.js';

const SCALARS = ['code', 'name', 'description', 'syllabus', 'workload', 'credits', 'modality', 'level', 'isActive', 'isRequired'] as const;
const CODE_TAKEN = { code: ['The code has already been taken.'] };

/** The institution a module belongs to. */
const RELATIONS = declareReferences<Relation<Module, ModuleInput>>(UpdateModuleInput, [
  { property: 'institution', entity: Institution, field: 'institutionUuid' },
]);

/** Modules: the code is unique per institution among live modules, case-insensitively. */
export class ModuleService extends ResourceService<Module, ModuleInput> {
  protected readonly entity = Module;
  protected readonly label = 'Module';
  protected readonly defaults: Partial<ModuleInput> = {
    code: null,
    description: null,
    syllabus: null,
    workload: null,
    credits: null,
    modality: null,
    level: null,
    isActive: true,
    isRequired: false,
  };
  protected readonly whereColumns = { institutionUuid: 'institution' };
  protected readonly uuidWhereFields = ['institutionUuid'];
  protected readonly uniqueViolations = { modules_code_unique: CODE_TAKEN };

  protected async apply(ctx: RequestContext, row: Module, input: Partial<ModuleInput>, mode: WriteMode): Promise<void> {
    const before = mode === 'create' ? undefined : row.institution?.uuid;
    await this.relateAll(ctx, row, input, RELATIONS);
    if (before && row.institution.uuid !== before && (await ctx.em.count(CourseModule, { module: row }))) {
      throw invalid({ institutionUuid: ['A module attached to courses cannot move to another institution.'] });
    }
    assignPresent(row, input, SCALARS);
    if (row.code) {
      await ensureUnique(ctx.em, Module, { institution: row.institution, code: { $ilike: row.code.replace(/[\\%_]/g, '\\$&') } }, row.uuid, 'code');
    }
  }

  /** A deleted module leaves the courses it was attached to. */
  protected async beforeDelete(ctx: RequestContext, rows: Module[]): Promise<void> {
    await ctx.em.nativeUpdate(CourseModule, { module: { $in: rows } }, { deletedAt: new Date() });
  }
}

export const modules = new ModuleService();
