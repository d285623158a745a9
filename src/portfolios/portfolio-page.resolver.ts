import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, FieldResolver, Info, Resolver, Root } from 'type-graphql';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import type { Readable, Row } from '../db/rows.js';
import { type Connection, ConnectionType, RelationArgs, RelationPageArgs } from '../graphql/connection.js';
import { relationConnection } from '../graphql/relation-connection.js';
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
  @FieldResolver(() => ConnectionType(PortfolioPage, 'PortfolioPage'), {
    description:
      'The student’s portfolio pages, a page at a time in uuid (creation) order; the same rows as `portfolioPages(where: {studentUuid})`, whose cursors page them too.',
  })
  pages(
    @Root() student: Readable<Student>,
    @Args() args: RelationPageArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Row<PortfolioPage>>> {
    return relationConnection(ctx, info, PortfolioPage, 'student', student.uuid, args);
  }
}
