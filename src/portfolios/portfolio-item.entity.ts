import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { Certificate } from '../certificates/certificate.entity.js';
import { LiveFilterIndexes, TenantScopedEntity } from '../db/base.entity.js';
import { PortfolioPage } from './portfolio-page.entity.js';
import { Node } from '../graphql/node.js';

/** One certificate shown on a portfolio page, at a position; at most one item per certificate and page. */
@ObjectType({ simpleResolvers: true, implements: Node, description: 'One certificate shown on a portfolio page.' })
@Entity({ tableName: 'portfolio_items' })
@Index({
  name: 'portfolio_items_certificate_unique',
  expression: 'create unique index "portfolio_items_certificate_unique" on "portfolio_items" ("page_uuid", "certificate_uuid") where "deleted_at" is null',
})
@LiveFilterIndexes('portfolio_items', ['certificate_uuid', 'sort_order', 'created_at', 'updated_at'])
export class PortfolioItem extends TenantScopedEntity {
  @ManyToOne(() => PortfolioPage, { ref: true, index: true })
  page!: Ref<PortfolioPage>;

  @ManyToOne(() => Certificate, { ref: true, index: true })
  certificate!: Ref<Certificate>;

  @Field(() => Int, { description: 'Position on the page, ascending.' })
  @Property({ type: 'integer' })
  sortOrder!: number;

  @Field(() => Boolean, { description: 'Shown on the public page; default `true`.' })
  @Property({ type: 'boolean' })
  isVisible: boolean & Opt = true;
}
