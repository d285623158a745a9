import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { TemplateStatus } from './certificate-template.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCertificateTemplateInput {
  @Field(() => ID, { nullable: true })
  @Present()
  institutionUuid?: string;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(50)
  version?: string;

  @Field({ nullable: true })
  @Present()
  @NotBlank()
  @MaxChars(1024)
  path?: string;

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(1024)
  previewImagePath?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  designConfig?: Record<string, unknown> | null;

  @Field({ nullable: true, description: 'Setting it clears the default flag of the institution’s other templates.' })
  @Present()
  isDefault?: boolean;

  @Field(() => TemplateStatus, { nullable: true, description: 'Default `active`.' })
  @Present()
  status?: TemplateStatus;
}

@InputType({ description: 'Every field of a certificate template: create and PUT.' })
export class CertificateTemplateInput extends UpdateCertificateTemplateInput {
  @Field(() => ID)
  declare institutionUuid: string;

  @Field()
  declare name: string;

  @Field()
  declare version: string;

  @Field()
  declare path: string;
}

@InputType()
export class CertificateTemplateWhere {
  @Field(() => ID, { nullable: true })
  institutionUuid?: string;

  @Field(() => TemplateStatus, { nullable: true })
  status?: TemplateStatus;

  @Field({ nullable: true })
  isDefault?: boolean;

  @Field({ nullable: true })
  version?: string;

  @Field({ nullable: true })
  name?: string;
}

export const CertificateTemplateListArgs = ListArgsType('CertificateTemplate', CertificateTemplateWhere, [
  'name',
  'version',
  'status',
  'created_at',
  'updated_at',
]);
