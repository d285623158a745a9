import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { Email, MaxChars, NotBlank, Nullable, Present, Url } from '../graphql/validators.js';
import { InstitutionStatus } from './institution.entity.js';
import { EXTERNAL_ID_DESCRIPTION, ExternalIdFilter, ExternalIdInput } from '../resources/external-id.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateInstitutionInput {
  @ExternalIdInput(EXTERNAL_ID_DESCRIPTION)
  externalId?: string | null;

  @Field({ nullable: true, description: 'Display name, printed on certificates.' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true, description: 'Country of registration.' })
  @Present()
  @NotBlank()
  @MaxChars(100)
  country?: string;

  @Field(() => String, { nullable: true, description: 'Official legal entity name.' })
  @Nullable()
  @MaxChars(255)
  legalName?: string | null;

  @Field(() => String, { nullable: true, description: 'Tax registration number.' })
  @Nullable()
  @MaxChars(64)
  taxId?: string | null;

  @Field(() => String, { nullable: true, description: 'Public website URL.' })
  @Nullable()
  @Url()
  @MaxChars(2048)
  website?: string | null;

  @Field(() => String, { nullable: true, description: 'Contact e-mail, published as the Open Badges issuer email; required while badges are enabled.' })
  @Nullable()
  @Email()
  @MaxChars(255)
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'Professional-network organization slug.' })
  @Nullable()
  @MaxChars(255)
  networkOrganization?: string | null;

  @Field(() => InstitutionStatus, { nullable: true, description: 'Default `active`.' })
  @Present()
  status?: InstitutionStatus;

  @Field({ nullable: true, description: 'Default `false`; `true` requires `badgeImageUuid`.' })
  @Present()
  isBadgesEnabled?: boolean;

  @Field({ nullable: true, description: 'Default `false`; `true` shows the final grade on the public verification page.' })
  @Present()
  isGradePublic?: boolean;

  @Field({ nullable: true, description: "Default `false`; `true` makes the issuance e-mail's wallet offer ask for a PIN the e-mail carries." })
  @Present()
  isWalletPinRequired?: boolean;

  @Field(() => ID, { nullable: true, description: 'An uploaded PNG or SVG file of this tenant.' })
  badgeImageUuid?: string | null;
}

@InputType({ description: 'Every field of an institution: create and PUT.' })
export class InstitutionInput extends UpdateInstitutionInput {
  @Field({ description: 'Display name, printed on certificates.' })
  declare name: string;

  @Field({ description: 'Country of registration.' })
  declare country: string;
}

@InputType({ description: 'Equality filters on institutions.' })
export class InstitutionWhere {
  @ExternalIdFilter()
  externalId?: string;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;

  @Field({ nullable: true, description: 'Only records whose country equals this.' })
  country?: string;

  @Field(() => InstitutionStatus, { nullable: true, description: 'Only records whose status equals this.' })
  status?: InstitutionStatus;

  @Field({ nullable: true, description: 'Only records whose is badges enabled equals this.' })
  isBadgesEnabled?: boolean;

  @Field(() => String, { nullable: true, description: 'Only records whose tax id equals this.' })
  taxId?: string | null;
}

export const InstitutionListArgs = ListArgsType('Institution', InstitutionWhere, ['name', 'country', 'status', 'created_at', 'updated_at']);
