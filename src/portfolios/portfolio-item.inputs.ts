import { Field, ID, InputType, Int } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { AtLeast, AtMost, Present } from '../graphql/validators.js';

export const MAX_SORT_ORDER = 1_000_000;

@InputType({ description: 'An item’s visibility or position (PATCH); absent fields keep their value.' })
export class UpdatePortfolioItemInput {
  @Field(() => Int, { nullable: true, description: `Position on the page, 0-${MAX_SORT_ORDER}; default: after the last item.` })
  @Present()
  @AtLeast(0)
  @AtMost(MAX_SORT_ORDER)
  sortOrder?: number;

  @Field({ nullable: true, description: 'Default `true`.' })
  @Present()
  isVisible?: boolean;
}

@InputType({ description: 'A certificate added to a portfolio page.' })
export class PortfolioItemInput extends UpdatePortfolioItemInput {
  @Field(() => ID, { description: 'The page; taken from the path in REST.' })
  pageUuid!: string;

  @Field(() => ID, { description: 'An issued (or since revoked or expired) certificate of the page’s student.' })
  certificateUuid!: string;
}

@InputType({ description: 'Equality filters on portfolio items.' })
export class PortfolioItemWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose page uuid equals this.' })
  pageUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose certificate uuid equals this.' })
  certificateUuid?: string;

  @Field({ nullable: true, description: 'Only records whose is visible equals this.' })
  isVisible?: boolean;
}

export const PortfolioItemListArgs = ListArgsType('PortfolioItem', PortfolioItemWhere, ['sort_order', 'created_at', 'updated_at']);
