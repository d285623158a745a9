import { Field, ID, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/list-args.js';
import { MaxChars, Nullable, Present, Url } from '../graphql/validators.js';
import { CertificateStatus } from './certificate.entity.js';

@InputType({ description: 'The fields of a draft to change (PATCH); `finish: true` also issues it.' })
export class UpdateCertificateInput {
  @Field(() => ID, { nullable: true })
  @Present()
  institutionUuid?: string;

  @Field(() => ID, { nullable: true })
  @Present()
  courseUuid?: string;

  @Field(() => ID, { nullable: true })
  @Present()
  studentUuid?: string;

  @Field(() => ID, { nullable: true, description: 'An uploaded, unused PDF of this tenant.' })
  @Present()
  fileUuid?: string;

  @Field({ nullable: true, description: '`true` runs issuance: sign, transcript, notification. Default `false` (draft).' })
  @Nullable()
  finish?: boolean;

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

  @Field(() => String, { nullable: true })
  @Nullable()
  @MaxChars(255)
  blockchainTxHash?: string | null;

  @Field(() => String, { nullable: true })
  @Nullable()
  @Url()
  @MaxChars(2048)
  blockchainTxUrl?: string | null;
}

@InputType({ description: 'A certificate: create and PUT (of a draft).' })
export class CertificateInput extends UpdateCertificateInput {
  @Field(() => ID)
  declare institutionUuid: string;

  @Field(() => ID)
  declare courseUuid: string;

  @Field(() => ID)
  declare studentUuid: string;

  @Field(() => ID)
  declare fileUuid: string;
}

@InputType()
export class CertificateWhere {
  @Field(() => CertificateStatus, { nullable: true, description: '`expired` also matches issued certificates past their expiry.' })
  status?: CertificateStatus;

  @Field(() => ID, { nullable: true })
  institutionUuid?: string;

  @Field(() => ID, { nullable: true })
  courseUuid?: string;

  @Field(() => ID, { nullable: true })
  studentUuid?: string;

  @Field(() => ID, { nullable: true })
  cohortUuid?: string | null;

  @Field(() => ID, { nullable: true })
  enrollmentUuid?: string | null;

  @Field(() => ID, { nullable: true })
  templateUuid?: string | null;

  @Field(() => ID, { nullable: true, description: 'The uploaded source PDF: which certificate uses this file.' })
  fileUuid?: string;
}

export const CertificateListArgs = ListArgsType('Certificate', CertificateWhere, [
  'issued_at',
  'expires_at',
  'revoked_at',
  'status',
  'created_at',
  'updated_at',
]);
