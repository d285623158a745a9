import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, Info } from 'type-graphql';
import { Certificate } from '../certificates/certificate.entity.js';
import type { Loaded } from '../context/loaders.js';
import type { RequestContext } from '../context/request-context.js';
import type { Readable, Row } from '../db/rows.js';
import { asksForTotal, type Connection, ConnectionType, toConnection } from '../graphql/connection.js';
import type { ListArgs } from '../resources/resource.service.js';
import { registerNodeType } from '../graphql/node.js';
import { PortfolioItem } from './portfolio-item.entity.js';
import { PortfolioItemInput, PortfolioItemListArgs, UpdatePortfolioItemInput } from './portfolio-item.inputs.js';
import { portfolioItems } from './portfolio-item.service.js';
import { PortfolioPage } from './portfolio-page.entity.js';

const PortfolioItemConnection = ConnectionType(PortfolioItem, 'PortfolioItem');
registerNodeType('PortfolioItem', (ctx, uuid) => portfolioItems.find(ctx, uuid));
const PAGE_GUARD = { nullable: true, description: 'When given, the item must be on this page.' } as const;
const STUDENT_GUARD = { nullable: true, description: 'When given, the item’s page must be this student’s.' } as const;

/** Items are added to a page rather than created on their own, so their operations are named here, not by ResourceResolver. */
@Resolver(() => PortfolioItem)
export class PortfolioItemResolver {
  @Query(() => PortfolioItem, { nullable: true, description: 'One PortfolioItem of this tenant by uuid; null with a NOT_FOUND error when there is none.' })
  portfolioItem(
    @Arg('uuid', () => ID, { description: 'The item’s uuid.' }) uuid: string,
    @Ctx() ctx: RequestContext,
    @Arg('pageUuid', () => ID, PAGE_GUARD) pageUuid?: string,
    @Arg('studentUuid', () => ID, STUDENT_GUARD) studentUuid?: string,
  ): Promise<PortfolioItem> {
    return portfolioItems.find(ctx, uuid, { pageUuid, studentUuid });
  }

  @Query(() => PortfolioItemConnection, { description: 'PortfolioItems of this tenant, filtered, sorted and paged.' })
  async portfolioItems(
    @Args(() => PortfolioItemListArgs) args: ListArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Row<PortfolioItem>>> {
    return toConnection(await portfolioItems.list(ctx, { ...args, withTotal: asksForTotal(info) }));
  }

  @Mutation(() => PortfolioItem, { description: 'Adds an issued certificate of the page’s student to the page; last unless `sortOrder` is given.' })
  addPortfolioItem(
    @Arg('input', () => PortfolioItemInput, { description: 'The page and the certificate to show.' }) input: PortfolioItemInput,
    @Ctx() ctx: RequestContext,
    @Arg('studentUuid', () => ID, { nullable: true, description: 'When given, the page must be this student’s.' }) studentUuid?: string,
  ): Promise<PortfolioItem> {
    return portfolioItems.add(ctx, input, studentUuid);
  }

  @Mutation(() => PortfolioItem, { description: 'Changes an item’s visibility or position (PATCH).' })
  updatePortfolioItem(
    @Arg('uuid', () => ID, { description: 'The item’s uuid.' }) uuid: string,
    @Arg('input', () => UpdatePortfolioItemInput, { description: 'Only the fields to change.' }) input: UpdatePortfolioItemInput,
    @Ctx() ctx: RequestContext,
    @Arg('pageUuid', () => ID, PAGE_GUARD) pageUuid?: string,
    @Arg('studentUuid', () => ID, STUDENT_GUARD) studentUuid?: string,
  ): Promise<PortfolioItem> {
    return portfolioItems.change(ctx, uuid, input, { pageUuid, studentUuid });
  }

  @Mutation(() => Boolean, { description: 'Soft delete.' })
  deletePortfolioItem(
    @Arg('uuid', () => ID, { description: 'The item’s uuid.' }) uuid: string,
    @Ctx() ctx: RequestContext,
    @Arg('pageUuid', () => ID, PAGE_GUARD) pageUuid?: string,
    @Arg('studentUuid', () => ID, STUDENT_GUARD) studentUuid?: string,
  ): Promise<boolean> {
    return portfolioItems.remove(ctx, uuid, { pageUuid, studentUuid });
  }

  @Mutation(() => Int, { description: 'Soft-deletes all of them or, if any uuid is unknown (or on another page), none.' })
  deletePortfolioItems(
    @Arg('uuids', () => [ID], { description: 'The uuids of the items to remove.' }) uuids: string[],
    @Ctx() ctx: RequestContext,
    @Arg('pageUuid', () => ID, { nullable: true, description: 'When given, every item must be on this page.' }) pageUuid?: string,
    @Arg('studentUuid', () => ID, { nullable: true, description: 'With `pageUuid`: the page must be this student’s.' }) studentUuid?: string,
  ): Promise<number> {
    return portfolioItems.removeMany(ctx, uuids, { pageUuid, studentUuid });
  }

  @FieldResolver(() => Certificate, { description: 'The certificate shown.' })
  certificate(@Root() item: Readable<PortfolioItem>, @Ctx() ctx: RequestContext): Loaded<Row<Certificate>> {
    return ctx.loaders.one(Certificate, item.certificate);
  }

  @FieldResolver(() => PortfolioPage, { description: 'The page it is on.' })
  page(@Root() item: Readable<PortfolioItem>, @Ctx() ctx: RequestContext): Loaded<Row<PortfolioPage>> {
    return ctx.loaders.one(PortfolioPage, item.page);
  }
}
