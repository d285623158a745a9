import { LockMode, ref } from '@mikro-orm/core';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import type { RequestContext } from '../context/request-context.js';
import { requireRelated } from '../db/lookup.js';
import { isUuid } from '../db/uuid.js';
import { invalid, notFound } from '../errors/domain-error.js';
import { MAX_RELATION_SIZE } from '../graphql/connection.js';
import { assignPresent, ResourceService } from '../resources/resource.service.js';
import { PortfolioItem } from './portfolio-item.entity.js';
import type { PortfolioItemInput } from './portfolio-item.inputs.js';
import { itemCountAndLastPosition } from './portfolio.repository.js';
import { PortfolioPage } from './portfolio-page.entity.js';

/** A page holds at most this many items, so the page (and its public view) is always one bounded read. */
export const MAX_ITEMS_PER_PAGE = MAX_RELATION_SIZE;

const ALREADY_ON_PAGE = { certificateUuid: ['The certificate is already on this page.'] };

/** Where REST paths nest an item: under a page, itself under a student; another parent's item is a 404. */
export interface ItemScope {
  pageUuid?: string | null;
  studentUuid?: string | null;
}

/**
 * Portfolio items: certificates a student shows on one of their pages. Only the page student's
 * certificates that were issued (even if since revoked or expired), once per page; new items go last.
 */
export class PortfolioItemService extends ResourceService<PortfolioItem, PortfolioItemInput> {
  protected readonly entity = PortfolioItem;
  protected readonly label = 'Portfolio item';
  protected readonly parentField = 'page';
  protected readonly parentEntity = PortfolioPage;
  protected readonly defaults: Partial<PortfolioItemInput> = { isVisible: true };
  protected readonly whereColumns = { pageUuid: 'page', certificateUuid: 'certificate' };
  protected readonly uuidWhereFields = ['pageUuid', 'certificateUuid'];
  protected readonly uniqueViolations = { portfolio_items_certificate_unique: ALREADY_ON_PAGE };

  /** An item within `scope`, else 404. */
  async find(ctx: RequestContext, uuid: string, { pageUuid, studentUuid }: ItemScope = {}): Promise<PortfolioItem> {
    const item = await this.get(ctx, uuid, pageUuid ?? undefined);
    if (studentUuid != null && !(await this.pageOfStudent(ctx, item.page.uuid, studentUuid))) throw notFound(this.label);
    return item;
  }

  /** Adds a certificate to a page; with `studentUuid`, the page must be that student's (else 422 on pageUuid, as an unknown page). */
  async add(ctx: RequestContext, input: PortfolioItemInput, studentUuid?: string | null): Promise<PortfolioItem> {
    if (studentUuid != null && !(await this.pageOfStudent(ctx, input.pageUuid, studentUuid))) throw unknownPage();
    return this.create(ctx, input);
  }

  async change(ctx: RequestContext, uuid: string, input: Partial<PortfolioItemInput>, scope: ItemScope = {}): Promise<PortfolioItem> {
    await this.find(ctx, uuid, scope);
    return this.update(ctx, uuid, input, scope.pageUuid ?? undefined);
  }

  async remove(ctx: RequestContext, uuid: string, scope: ItemScope = {}): Promise<boolean> {
    await this.find(ctx, uuid, scope);
    return this.delete(ctx, uuid, scope.pageUuid ?? undefined);
  }

  /** All or nothing; with a scope, every item must be on that page (of that student). */
  async removeMany(ctx: RequestContext, uuids: string[], { pageUuid, studentUuid }: ItemScope = {}): Promise<number> {
    if (studentUuid != null && pageUuid != null && !(await this.pageOfStudent(ctx, pageUuid, studentUuid))) throw notFound('Portfolio page');
    return this.deleteMany(ctx, uuids, pageUuid ?? undefined);
  }

  protected async apply(ctx: RequestContext, row: PortfolioItem, input: Partial<PortfolioItemInput>, mode: string): Promise<void> {
    if (mode === 'create') await this.place(ctx, row, input as PortfolioItemInput);
    assignPresent(row, input, ['sortOrder', 'isVisible']);
  }

  /** The new item's page and certificate, checked in this order (an unknown page is the path's 404 in REST); position last by default. */
  private async place(ctx: RequestContext, row: PortfolioItem, input: PortfolioItemInput): Promise<void> {
    // The page row is locked so concurrent adds see each other's count and last position.
    const page = isUuid(input.pageUuid) ? await ctx.em.findOne(PortfolioPage, { uuid: input.pageUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (!page) throw unknownPage();
    const certificate = await requireRelated(ctx.em, Certificate, input.certificateUuid, 'certificateUuid');
    if (certificate.student.uuid !== page.student.uuid) throw invalid({ certificateUuid: ['The certificate must be one of the page’s student’s.'] });
    if (certificate.status === CertificateStatus.draft) throw invalid({ certificateUuid: ['The certificate must be issued.'] });
    if (await ctx.em.count(PortfolioItem, { page, certificate })) throw invalid(ALREADY_ON_PAGE);
    const { count, last } = await itemCountAndLastPosition(ctx.em, page);
    if (count >= MAX_ITEMS_PER_PAGE) throw invalid({ certificateUuid: [`A page holds at most ${MAX_ITEMS_PER_PAGE} items.`] });
    row.page = ref(page);
    row.certificate = ref(certificate);
    row.sortOrder = input.sortOrder ?? (last == null ? 0 : last + 1);
  }

  private async pageOfStudent(ctx: RequestContext, pageUuid: string, studentUuid: string): Promise<boolean> {
    return isUuid(pageUuid) && isUuid(studentUuid) && !!(await ctx.em.findOne(PortfolioPage, { uuid: pageUuid, student: studentUuid }));
  }
}

const unknownPage = () => invalid({ pageUuid: ['The selected page uuid is invalid.'] });

export const portfolioItems = new PortfolioItemService();
