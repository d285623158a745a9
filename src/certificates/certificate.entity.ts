import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { externalIdIndex, ExternallyIdentifiedEntity, LiveFilterIndexes, liveListIndex, liveSortIndex } from '../db/base.entity.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { StoredFile } from '../files/file.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Student } from '../students/student.entity.js';
import { CertificateTemplate } from '../templates/certificate-template.entity.js';
import { Node } from '../graphql/node.js';

export enum CertificateStatus {
  draft = 'draft',
  issued = 'issued',
  revoked = 'revoked',
  expired = 'expired',
}
registerEnumType(CertificateStatus, {
  name: 'CertificateStatus',
  description: "The certificate's state: draft → issued → revoked, or expired past its expiry.",
  valuesConfig: {
    draft: { description: 'Not issued yet; still editable.' },
    issued: { description: 'Signed and valid.' },
    revoked: { description: 'Withdrawn by the institution, with a reason.' },
    expired: { description: 'Issued, but past its expiry date.' },
  },
});

/**
 * A student's credential for a course, issued by an institution. Drafts change freely; issuance
 * freezes the recipient snapshot, signs the uploaded PDF and a generated transcript; issued ones
 * only move to revoked or expired.
 */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A credential issued to a student for a course: a draft until issued, then signed and verifiable.',
})
@Entity({ tableName: 'certificates' })
@Index(liveListIndex('certificates'))
@Index(liveSortIndex('certificates_growth_created_index', 'certificates', ['tenant_uuid', 'created_at', 'uuid']))
@Index(liveSortIndex('certificates_growth_issued_index', 'certificates', ['tenant_uuid', 'issued_at', 'uuid']))
@Index(externalIdIndex('certificates'))
@Index({
  name: 'certificates_source_file_unique',
  expression: `create unique index "certificates_source_file_unique" on "certificates" ("source_file_uuid") where "deleted_at" is null and "status" <> 'revoked'`,
})
@Index({ name: 'certificates_expiry_index', expression: `create index "certificates_expiry_index" on "certificates" ("expires_at") where "status" = 'issued'` })
@Index({
  name: 'certificates_unanchored_index',
  expression: `create index "certificates_unanchored_index" on "certificates" ("issued_at", "uuid") where "status" = 'issued' and "blockchain_tx_hash" is null and "deleted_at" is null`,
})
@LiveFilterIndexes('certificates', ['status', 'expires_at', 'revoked_at', 'blockchain_tx_hash', 'updated_at'])
export class Certificate extends ExternallyIdentifiedEntity {
  @ManyToOne(() => Institution, { ref: true, index: true })
  institution!: Ref<Institution>;

  @ManyToOne(() => Course, { ref: true, index: true })
  course!: Ref<Course>;

  @ManyToOne(() => Student, { ref: true, index: true })
  student!: Ref<Student>;

  @ManyToOne(() => Cohort, { ref: true, nullable: true, index: true })
  cohort?: Ref<Cohort> | null;

  @ManyToOne(() => Enrollment, { ref: true, nullable: true, index: true })
  enrollment?: Ref<Enrollment> | null;

  @ManyToOne(() => CertificateTemplate, { ref: true, nullable: true, index: true })
  template?: Ref<CertificateTemplate> | null;

  /** The uploaded PDF this certificate was made from, or the page its template drew at issuance; null on a draft that its template will draw. */
  @ManyToOne(() => StoredFile, { ref: true, index: true, nullable: true, deleteRule: 'no action', updateRule: 'no action' })
  sourceFile?: Ref<StoredFile> | null;

  /** Free values a template's layout prints as `{{attributes.<key>}}`. */
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free values the template prints as {{attributes.<key>}} (at most 64 KiB of JSON).' })
  @Property({ type: 'json', nullable: true })
  attributes?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'The language of the student’s e-mail (`en`, `pt-BR`, …); null: the service’s default, English.' })
  @Property({ length: 10, nullable: true })
  locale?: string | null;

  /** As stored; `expired` is also derived for issued certificates past `expiresAt` (see CertificateResolver). */
  @Enum({ items: () => CertificateStatus, nativeEnumName: 'certificate_status' })
  status: CertificateStatus & Opt = CertificateStatus.draft;

  @Field(() => Date, { nullable: true, description: 'Official issuance date.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  issuedAt?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null unless revoked.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  revokedAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Why it was revoked, shown on the verification page.' })
  @Property({ type: 'text', nullable: true })
  revocationReason?: string | null;

  @Field(() => Date, { nullable: true, description: 'Past it, an issued certificate is expired.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  expiresAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Shareable verification page; generated when not supplied.' })
  @Property({ length: 2048, nullable: true })
  publicVerificationUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'Hash of a blockchain transaction anchoring the certificate, if any.' })
  @Property({ length: 255, nullable: true })
  blockchainTxHash?: string | null;

  @Field(() => String, { nullable: true, description: 'Link to that transaction in a block explorer.' })
  @Property({ length: 2048, nullable: true })
  blockchainTxUrl?: string | null;

  /** The recipient as at issuance; null while a draft. */
  @Property({ length: 255, nullable: true })
  recipientName?: string | null;

  @Property({ length: 255, nullable: true })
  recipientSocialName?: string | null;

  @Property({ length: 255, nullable: true })
  recipientEmail?: string | null;

  @Property({ type: 'date', nullable: true })
  recipientDateOfBirth?: string | null;
}
