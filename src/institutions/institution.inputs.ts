import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { MaxChars, NotBlank, Nullable, Present, Url } from '../graphql/validators.js';
import { InstitutionStatus } from './institution.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateInstitutionInput {
  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(100)
  country?: string;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(255)
  legalName?: string | null;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(64)
  taxId?: string | null;

  @Field(() => String, { nullable: true })
  @Nullable()
  @Url()
  @MaxChars(2048)
  website?: string | null;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(255)
  networkOrganization?: string | null;

  @Field(() => InstitutionStatus, { nullable: true, description: 'Default `active`.' })
  @Present()
  status?: InstitutionStatus;

  @Field({ nullable: true, description: 'Default `false`; `true` requires `badgeImageUuid`.' })
  @Present()
  isBadgesEnabled?: boolean;

  @Field(() => ID, { nullable: true, description: 'An uploaded PNG or SVG file of this tenant.' })
  badgeImageUuid?: string | null;
}

@InputType({ description: 'Every field of an institution: create and PUT.' })
export class InstitutionInput extends UpdateInstitutionInput {
  @Field()
  declare name: string;

  @Field()
  declare country: string;
}

@InputType()
export class InstitutionWhere {
  @Field({ nullable: true })
  name?: string;

  @Field({ nullable: true })
  country?: string;

  @Field(() => InstitutionStatus, { nullable: true })
  status?: InstitutionStatus;

  @Field({ nullable: true })
  isBadgesEnabled?: boolean;

  @Field(() => String, { nullable: true })
  taxId?: string | null;
}

export const InstitutionListArgs = ListArgsType('Institution', InstitutionWhere, ['name', 'country', 'status', 'created_at', 'updated_at']);
