import { IsOptional } from 'class-validator';
import { ArgsType, Field, ID, InputType, registerEnumType } from 'type-graphql';
import { PageArgs, SortOrder } from '../graphql/connection.js';
import { MaxChars, NotBlank, Url } from '../graphql/validators.js';
import { InstitutionStatus } from './institution.entity.js';

@InputType({ description: 'Every field of an institution: create and PUT.' })
export class InstitutionInput {
  @Field()
  @NotBlank()
  @MaxChars(255)
  name!: string;

  @Field()
  @NotBlank()
  @MaxChars(100)
  country!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(255)
  legalName?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(64)
  taxId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Url()
  @MaxChars(2048)
  website?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(255)
  networkOrganization?: string | null;

  @Field(() => InstitutionStatus, { nullable: true, description: 'Default `active`.' })
  status?: InstitutionStatus;

  @Field({ nullable: true, description: 'Default `false`; `true` requires `badgeImageUuid`.' })
  isBadgesEnabled?: boolean;

  @Field(() => ID, { nullable: true })
  badgeImageUuid?: string | null;
}

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateInstitutionInput {
  @Field({ nullable: true })
  @IsOptional()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true })
  @IsOptional()
  @NotBlank()
  @MaxChars(100)
  country?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(255)
  legalName?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(64)
  taxId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Url()
  @MaxChars(2048)
  website?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxChars(255)
  networkOrganization?: string | null;

  @Field(() => InstitutionStatus, { nullable: true })
  status?: InstitutionStatus;

  @Field({ nullable: true })
  isBadgesEnabled?: boolean;

  @Field(() => ID, { nullable: true })
  badgeImageUuid?: string | null;
}

@InputType({ description: 'Equality filters; an explicit null matches empty values.' })
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

export enum InstitutionSortColumn {
  name = 'name',
  country = 'country',
  status = 'status',
  created_at = 'created_at',
  updated_at = 'updated_at',
}
registerEnumType(InstitutionSortColumn, { name: 'InstitutionSortColumn' });

@InputType()
export class InstitutionSort {
  @Field(() => InstitutionSortColumn)
  column!: InstitutionSortColumn;

  @Field(() => SortOrder, { nullable: true, defaultValue: SortOrder.asc })
  order?: SortOrder;
}

@ArgsType()
export class InstitutionListArgs extends PageArgs {
  @Field(() => InstitutionWhere, { nullable: true })
  where?: InstitutionWhere;

  @Field(() => InstitutionSort, { nullable: true })
  sort?: InstitutionSort;
}
