import type { RequestContext } from '../context/request-context.js';
import { ensureUnique } from '../db/lookup.js';
import { invalid } from '../errors/domain-error.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { Student } from '../students/student.entity.js';
import { PortfolioItem } from './portfolio-item.entity.js';
import { PortfolioPage } from './portfolio-page.entity.js';
import type { PortfolioPageInput } from './portfolio-page.inputs.js';

const SLUG_TAKEN = { slug: ['The slug has already been taken.'] };

/** Portfolio pages: nested under their student (never moved to another), slugs unique per tenant among live pages. */
export class PortfolioPageService extends ResourceService<PortfolioPage, PortfolioPageInput> {
  protected readonly entity = PortfolioPage;
  protected readonly label = 'Portfolio page';
  protected readonly parentField = 'student';
  protected readonly parentEntity = Student;
  protected readonly defaults: Partial<PortfolioPageInput> = { isPublic: false, bio: null };
  protected readonly whereColumns = { studentUuid: 'student' };
  protected readonly uuidWhereFields = ['studentUuid'];
  protected readonly uniqueViolations = { portfolio_pages_slug_unique: SLUG_TAKEN };

  protected async apply(ctx: RequestContext, row: PortfolioPage, input: Partial<PortfolioPageInput>, mode: string): Promise<void> {
    if (mode === 'create') await this.relate(ctx, row, 'student', Student, input, 'studentUuid');
    else if (input.studentUuid !== undefined && input.studentUuid !== row.student.uuid) {
      throw invalid({ studentUuid: ['A portfolio page cannot move to another student.'] });
    }
    assignPresent(row, input, ['slug', 'isPublic', 'bio']);
    if (input.slug !== undefined) await ensureUnique(ctx.em, PortfolioPage, { slug: input.slug }, row.uuid, 'slug');
  }

  /** A deleted page takes its items with it. */
  protected async beforeDelete(ctx: RequestContext, rows: PortfolioPage[]): Promise<void> {
    await ctx.em.nativeUpdate(PortfolioItem, { page: { $in: rows } }, { deletedAt: new Date() });
  }
}

export const portfolioPages = new PortfolioPageService();

/** A deleted student's pages go too: nobody can manage them any more, and their slugs become free. */
export async function deletePagesOf(ctx: RequestContext, students: Student[]): Promise<void> {
  const pages = await ctx.em.find(PortfolioPage, { student: { $in: students } });
  if (pages.length === 0) return;
  const now = new Date();
  await ctx.em.nativeUpdate(PortfolioItem, { page: { $in: pages } }, { deletedAt: now });
  await ctx.em.nativeUpdate(PortfolioPage, { uuid: { $in: pages.map((page) => page.uuid) } }, { deletedAt: now });
}
