import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Readable, Row } from '../db/rows.js';
import type { RequestContext } from '../context/request-context.js';
import { uuidOf, type Loaded } from '../context/loaders.js';
import { anchorLoader, anchorView, blockcertsUrlOf, CertificateAnchorView } from '../anchoring/anchor.views.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { ConnectionType } from '../graphql/connection.js';
import { Institution } from '../institutions/institution.entity.js';
import { ResourceResolver } from '../resources/resource.resolver.js';
import { Student } from '../students/student.entity.js';
import { CertificateTemplate } from '../templates/certificate-template.entity.js';
import { CertificateFileType } from './certificate-document.entity.js';
import { certificateDocuments } from './certificate-documents.js';
import { displayName, effectiveStatus } from './certificate-rules.js';
import { Certificate, CertificateStatus } from './certificate.entity.js';
import { CertificateInput, CertificateListArgs, UpdateCertificateInput } from './certificate.inputs.js';
import { certificates } from './certificate.service.js';
import { resendIssuedMessage } from './certificate-resends.js';
import { CertificateFile, CertificateRecipient } from './certificate.views.js';

const fileView = (type: CertificateFileType, file: Readable<StoredFile>, ctx: RequestContext): CertificateFile => ({
  type,
  uuid: file.uuid,
  originalName: file.originalName,
  mimeType: file.mimeType,
  extension: file.extension,
  size: file.size,
  file: downloadUrl(ctx.publicBaseUrl, file.uuid),
  createdAt: file.createdAt,
});

@Resolver(() => Certificate)
export class CertificateResolver extends ResourceResolver({
  name: 'Certificate',
  pluralName: 'Certificates',
  type: Certificate,
  connection: ConnectionType(Certificate, 'Certificate'),
  listArgs: CertificateListArgs,
  input: CertificateInput,
  updateInput: UpdateCertificateInput,
  service: certificates,
}) {
  @FieldResolver(() => CertificateStatus, { description: 'An issued certificate past its expiry reads as expired.' })
  status(@Root() certificate: Readable<Certificate>): CertificateStatus {
    return effectiveStatus(certificate);
  }

  @FieldResolver(() => Institution, { description: 'The issuing institution.' })
  institution(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<Institution>> {
    return ctx.loaders.one(Institution, certificate.institution);
  }

  @FieldResolver(() => Course, { description: 'The course certified.' })
  course(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<Course>> {
    return ctx.loaders.one(Course, certificate.course);
  }

  @FieldResolver(() => Student, { description: 'The student record as it is now; `recipient` is who the certificate names.' })
  student(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<Student>> {
    return ctx.loaders.one(Student, certificate.student);
  }

  @FieldResolver(() => CertificateRecipient, { description: 'Frozen at issuance; for a draft, the student as they are.' })
  async recipient(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Promise<CertificateRecipient> {
    const person = certificate.recipientName
      ? {
          name: certificate.recipientName,
          socialName: certificate.recipientSocialName ?? null,
          email: certificate.recipientEmail!,
          dateOfBirth: certificate.recipientDateOfBirth!,
        }
      : await ctx.loaders.one(Student, certificate.student);
    return {
      uuid: uuidOf(certificate.student),
      displayName: displayName(person),
      name: person.name,
      socialName: person.socialName ?? null,
      email: person.email,
      dateOfBirth: person.dateOfBirth,
    };
  }

  @FieldResolver(() => Cohort, { nullable: true, description: 'The cohort, if any.' })
  cohort(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<Cohort> | null> {
    return ctx.loaders.optional(Cohort, certificate.cohort);
  }

  @FieldResolver(() => Enrollment, { nullable: true, description: 'The enrollment whose grade goes on the transcript, if any.' })
  enrollment(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<Enrollment> | null> {
    return ctx.loaders.optional(Enrollment, certificate.enrollment);
  }

  @FieldResolver(() => CertificateTemplate, { nullable: true, description: 'The design used.' })
  template(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Loaded<Row<CertificateTemplate> | null> {
    return ctx.loaders.optional(CertificateTemplate, certificate.template);
  }

  @FieldResolver(() => CertificateAnchorView, {
    nullable: true,
    description: 'Its blockchain anchoring once confirmed; null while not anchored (or anchoring is off).',
  })
  async anchor(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Promise<CertificateAnchorView | null> {
    if (!certificate.blockchainTxHash) return null;
    const record = await anchorLoader(ctx).load(certificate.uuid);
    return record ? anchorView(record, certificate.blockchainTxUrl ?? null) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'Its public Blockcerts v3 credential once anchored; null before.' })
  blockcertsUrl(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): string | null {
    return certificate.blockchainTxHash ? blockcertsUrlOf(ctx.publicBaseUrl, certificate.uuid) : null;
  }

  @FieldResolver(() => [CertificateFile], { description: 'The uploaded source, then (once issued) the signed certificate and transcript.' })
  async files(@Root() certificate: Readable<Certificate>, @Ctx() ctx: RequestContext): Promise<CertificateFile[]> {
    const documents = await certificateDocuments(ctx).load(certificate.uuid);
    // A draft its template will draw has no source yet.
    const source = certificate.sourceFile ? [{ type: CertificateFileType.source, file: certificate.sourceFile }] : [];
    const listed = [...source, ...documents];
    const stored = await Promise.all(listed.map(({ file }) => ctx.loaders.one(StoredFile, file)));
    const types = listed.map(({ type }) => type);
    return stored.map((file, index) => fileView(types[index]!, file, ctx));
  }

  @Mutation(() => Certificate, { description: 'Issues a draft: signs its PDF, generates and signs the transcript, notifies the student.' })
  issueCertificate(
    @Arg('uuid', () => ID, { description: 'The certificate’s uuid.' }) uuid: string,
    @Ctx() ctx: RequestContext,
    @Arg('notify', () => Boolean, { nullable: true, description: '`false` issues without e-mailing the student. Default `true`.' }) notify?: boolean | null,
  ): Promise<Certificate> {
    return certificates.issue(ctx, uuid, notify !== false);
  }

  @Mutation(() => Certificate, {
    description: 'E-mails the student about an issued certificate again (at most 3 e-mails about a certificate an hour; more is TOO_MANY_REQUESTS).',
  })
  resendCertificateNotification(
    @Arg('uuid', () => ID, { description: 'The certificate’s uuid.' }) uuid: string,
    @Ctx() ctx: RequestContext,
  ): Promise<Certificate> {
    return resendIssuedMessage(ctx, uuid);
  }

  @Mutation(() => Certificate, { description: 'issued → revoked; the reason is shown on the public verification page.' })
  revokeCertificate(
    @Arg('uuid', () => ID, { description: 'The certificate’s uuid.' }) uuid: string,
    @Arg('reason', { description: 'Why it is revoked; shown on the verification page (at most 2000 characters).' }) reason: string,
    @Ctx() ctx: RequestContext,
  ): Promise<Certificate> {
    return certificates.revoke(ctx, uuid, reason);
  }
}
