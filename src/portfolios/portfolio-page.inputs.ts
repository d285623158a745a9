import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { MaxChars, Nullable, Present } from '../graphql/validators.js';
import { PortfolioSlug } from './portfolio-slug.js';

export const MAX_BIO_CHARS = 2000;

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdatePortfolioPageInput {
  @Field({ nullable: true, description: 'Lower-case letters, digits and hyphens (3-64); unique within the tenant.' })
  @Present()
  @PortfolioSlug()
  slug?: string;

  @Field({ nullable: true, description: 'Default `false`.' })
  @Present()
  isPublic?: boolean;

  @Field(() => String, { nullable: true, description: `At most ${MAX_BIO_CHARS} characters.` })
  @Nullable()
  @MaxChars(MAX_BIO_CHARS)
  bio?: string | null;
}

@InputType({ description: 'Every field of a portfolio page: create and PUT.' })
export class PortfolioPageInput extends UpdatePortfolioPageInput {
  @Field(() => ID, { description: 'The student; taken from the path in REST.' })
  studentUuid!: string;

  @Field({ description: 'Lower-case letters, digits and hyphens (3-64); unique within the tenant.' })
  declare slug: string;
}

@InputType({ description: 'Equality filters on portfolio pages.' })
export class PortfolioPageWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose student uuid equals this.' })
  studentUuid?: string;

  @Field({ nullable: true, description: 'Only records whose slug equals this.' })
  slug?: string;

  @Field({ nullable: true, description: 'Only records whose is public equals this.' })
  isPublic?: boolean;
}

export const PortfolioPageListArgs = ListArgsType('PortfolioPage', PortfolioPageWhere, ['slug', 'created_at', 'updated_at']);
