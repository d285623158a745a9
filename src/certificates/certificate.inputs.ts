import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { FREE_JSON_MAX_BYTES, MaxChars, MaxJsonBytes, NotNull, Nullable, OneOf, Present, Prohibited, RequiredWithoutAll, Url } from '../graphql/validators.js';
import { CertificateStatus } from './certificate.entity.js';
import { RecipientInput } from '../students/recipient.inputs.js';
import { LOCALES } from '../pages/locale.js';
import { EXTERNAL_ID_DESCRIPTION, ExternalIdFilter, ExternalIdInput } from '../resources/external-id.js';

const SET_WHEN_ANCHORED = 'it is set by the service when the certificate is anchored on a blockchain (docs/anchoring.md).';

@InputType({ description: 'The fields of a draft to change (PATCH); `finish: true` also issues it.' })
export class UpdateCertificateInput {
  @ExternalIdInput(EXTERNAL_ID_DESCRIPTION)
  externalId?: string | null;

  @Field(() => ID, { nullable: true, description: 'The uuid of the issuing institution.' })
  @NotNull()
  institutionUuid?: string;

  @Field(() => ID, { nullable: true, description: 'The uuid of the course certified.' })
  @NotNull()
  courseUuid?: string;

  @Field(() => ID, { nullable: true, description: 'The uuid of the student receiving the certificate.' })
  @NotNull()
  studentUuid?: string;

  @ExternalIdInput('The course by its external id, instead of `courseUuid`.')
  courseExternalId?: string | null;

  @ExternalIdInput('The student by their external id, instead of `studentUuid`.')
  studentExternalId?: string | null;

  @Field(() => RecipientInput, {
    nullable: true,
    description: 'The recipient by email (and external id), instead of `studentUuid`: found, or registered as a new student.',
  })
  @Nullable()
  recipient?: RecipientInput | null;

  @Field(() => ID, { nullable: true, description: 'An uploaded, unused PDF of this tenant.' })
  @Present()
  fileUuid?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free values the template prints as {{attributes.<key>}} (at most 64 KiB of JSON).' })
  @MaxJsonBytes(FREE_JSON_MAX_BYTES)
  attributes?: Record<string, unknown> | null;

  @Field({ nullable: true, description: '`true` runs issuance: sign, transcript, notification. Default `false` (draft).' })
  @Nullable()
  finish?: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'The language of the student’s e-mail, one of the service’s languages (`en`, `pt-BR`, …). Default: English.',
  })
  @Nullable()
  @OneOf(LOCALES)
  locale?: string | null;

  @Field({ nullable: true, description: 'With `finish: true`: `false` issues without e-mailing the student. Default `true`.' })
  @Nullable()
  notify?: boolean;

  @Field(() => ID, { nullable: true, description: 'A cohort of the course.' })
  cohortUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'The student’s enrollment in the course; its grade goes on the transcript.' })
  enrollmentUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'Default: the institution’s default template.' })
  templateUuid?: string | null;

  @Field(() => String, { nullable: true, description: 'Default: this service’s verification page.' })
  @Nullable()
  @Url()
  @MaxChars(2048)
  publicVerificationUrl?: string | null;

  @Field(() => Date, { nullable: true, description: 'Past it, the issued certificate is expired.' })
  expiresAt?: Date | null;

  @Field(() => String, { nullable: true, deprecationReason: SET_WHEN_ANCHORED, description: 'Refused (422) unless null: set by the service when anchored.' })
  @Nullable()
  @Prohibited(SET_WHEN_ANCHORED)
  blockchainTxHash?: string | null;

  @Field(() => String, { nullable: true, deprecationReason: SET_WHEN_ANCHORED, description: 'Refused (422) unless null: set by the service when anchored.' })
  @Nullable()
  @Prohibited(SET_WHEN_ANCHORED)
  blockchainTxUrl?: string | null;
}

@InputType({ description: 'A certificate: create and PUT (of a draft).' })
export class CertificateInput extends UpdateCertificateInput {
  @Field(() => ID, { nullable: true, description: 'The uuid of the issuing institution. Default: the course’s institution.' })
  declare institutionUuid?: string;

  @Field(() => ID, { nullable: true, description: 'The uuid of the course certified; required unless `courseExternalId` is given.' })
  @RequiredWithoutAll(['courseExternalId'])
  declare courseUuid?: string;

  @Field(() => ID, {
    nullable: true,
    description: 'The uuid of the student receiving the certificate; required unless `studentExternalId` or `recipient` is given.',
  })
  @RequiredWithoutAll(['studentExternalId', 'recipient'])
  declare studentUuid?: string;

  @Field(() => ID, {
    nullable: true,
    description:
      'An uploaded, unused PDF of this tenant: the certificate to sign. May be left out when the template has a layout: the service draws the certificate.',
  })
  declare fileUuid?: string;
}

@InputType({ description: 'Equality filters on certificates.' })
export class CertificateWhere {
  @ExternalIdFilter()
  externalId?: string;

  @Field(() => CertificateStatus, { nullable: true, description: '`expired` also matches issued certificates past their expiry.' })
  status?: CertificateStatus;

  @Field(() => ID, { nullable: true, description: 'Only records whose institution uuid equals this.' })
  institutionUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose course uuid equals this.' })
  courseUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose student uuid equals this.' })
  studentUuid?: string;

  @Field(() => ID, { nullable: true, description: 'Only records whose cohort uuid equals this.' })
  cohortUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'Only records whose enrollment uuid equals this.' })
  enrollmentUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'Only records whose template uuid equals this.' })
  templateUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'The uploaded source PDF: which certificate uses this file.' })
  fileUuid?: string;

  @Field(() => String, { nullable: true, description: 'The anchoring transaction; an explicit null lists the certificates not anchored yet.' })
  blockchainTxHash?: string | null;
}

export const CertificateListArgs = ListArgsType('Certificate', CertificateWhere, [
  'issued_at',
  'expires_at',
  'revoked_at',
  'status',
  'created_at',
  'updated_at',
]);
