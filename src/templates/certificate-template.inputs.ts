import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { FREE_JSON_MAX_BYTES, MaxChars, MaxJsonBytes, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { TemplateStatus } from './certificate-template.entity.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateCertificateTemplateInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the institution that owns the template.' })
  @Present()
  institutionUuid?: string;

  @Field({ nullable: true, description: 'Template name.' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true, description: 'Version identifier of the design.' })
  @Present()
  @NotBlank()
  @MaxChars(50)
  version?: string;

  @Field({ nullable: true, description: 'Internal path of the template document.' })
  @Present()
  @NotBlank()
  @MaxChars(1024)
  path?: string;

  @Field(() => String, { nullable: true, description: 'Path of a preview image of the design.' })
  @Nullable()
  @MaxChars(1024)
  previewImagePath?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Design-tool configuration, stored as given (at most 64 KiB of JSON).' })
  @MaxJsonBytes(FREE_JSON_MAX_BYTES)
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
  @Field(() => ID, { description: 'The uuid of the institution that owns the template.' })
  declare institutionUuid: string;

  @Field({ description: 'Template name.' })
  declare name: string;

  @Field({ description: 'Version identifier of the design.' })
  declare version: string;

  @Field({ description: 'Internal path of the template document.' })
  declare path: string;
}

@InputType({ description: 'Equality filters on certificate templates.' })
export class CertificateTemplateWhere {
  @Field(() => ID, { nullable: true, description: 'Only records whose institution uuid equals this.' })
  institutionUuid?: string;

  @Field(() => TemplateStatus, { nullable: true, description: 'Only records whose status equals this.' })
  status?: TemplateStatus;

  @Field({ nullable: true, description: 'Only records whose is default equals this.' })
  isDefault?: boolean;

  @Field({ nullable: true, description: 'Only records whose version equals this.' })
  version?: string;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;
}

export const CertificateTemplateListArgs = ListArgsType('CertificateTemplate', CertificateTemplateWhere, [
  'name',
  'version',
  'status',
  'created_at',
  'updated_at',
]);
