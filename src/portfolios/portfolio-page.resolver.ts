import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import type { Readable, Row } from '../db/rows.js';
import { ConnectionType, RelationArgs } from '../graphql/connection.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Student } from '../students/student.entity.js';
import { PortfolioItem } from './portfolio-item.entity.js';
import { PortfolioPage } from './portfolio-page.entity.js';
import { PortfolioPageInput, PortfolioPageListArgs, UpdatePortfolioPageInput } from './portfolio-page.inputs.js';
import { portfolioPages } from './portfolio-page.service.js';
import { portfolioUrl } from './portfolio-url.js';

/** Items in page order: position, then when they were added. */
const PAGE_ORDER = { sortOrder: 'asc', createdAt: 'asc' } as const;

@Resolver(() => PortfolioPage)
export class PortfolioPageResolver extends ResourceResolver({
  name: 'PortfolioPage',
  pluralName: 'PortfolioPages',
  type: PortfolioPage,
  connection: ConnectionType(PortfolioPage, 'PortfolioPage'),
  listArgs: PortfolioPageListArgs,
  input: PortfolioPageInput,
  updateInput: UpdatePortfolioPageInput,
  service: portfolioPages,
  parentArg: 'studentUuid',
}) {
  @FieldResolver(() => Student, { description: 'The student whose page this is.' })
  student(@Root() page: Readable<PortfolioPage>, @Ctx() ctx: RequestContext): Loaded<Row<Student>> {
    return ctx.loaders.one(Student, page.student);
  }

  @FieldResolver(() => [PortfolioItem], { description: 'The first items in page order; `portfolioItems(where: {pageUuid})` pages through all.' })
  items(@Root() page: Readable<PortfolioPage>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<PortfolioItem>[]> {
    return ctx.loaders.manyBy(PortfolioItem, 'page', first, PAGE_ORDER).load(page.uuid);
  }

  @FieldResolver(() => String, { description: 'The public address of the page; it answers only while `isPublic`.' })
  publicUrl(@Root() page: Readable<PortfolioPage>, @Ctx() ctx: RequestContext): string {
    return portfolioUrl(ctx.publicBaseUrl, ctx.tenant.identifier, page.slug);
  }
}

/** `Student.pages`, kept with the portfolio domain. */
@Resolver(() => Student)
export class StudentPagesResolver {
  @FieldResolver(() => [PortfolioPage], { description: 'The first portfolio pages by uuid; `portfolioPages(where: {studentUuid})` pages through all.' })
  pages(@Root() student: Readable<Student>, @Args() { first }: RelationArgs, @Ctx() ctx: RequestContext): Promise<Row<PortfolioPage>[]> {
    return ctx.loaders.manyBy(PortfolioPage, 'student', first).load(student.uuid);
  }
}
