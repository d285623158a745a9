import { type EntityClass, type Ref, ref } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { conflict, invalid, type FieldErrors } from '../errors/domain-error.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { Institution } from '../institutions/institution.entity.js';
import { assignPresent, ResourceService, type WriteMode } from '../resources/resource.service.js';
import { Student } from '../students/student.entity.js';
import { CertificateTemplate } from '../templates/certificate-template.entity.js';
import { Tenant } from '../tenants/tenant.entity.js';
import { certificateTemplates } from '../templates/certificate-template.service.js';
import { Certificate, CertificateStatus } from './certificate.entity.js';
import { effectiveStatus, notPastExpiryWhere, pastExpiryWhere, verificationUrl } from './certificate-rules.js';
import type { CertificateInput } from './certificate.inputs.js';
import { issue } from './issuance.js';
import { verificationLinkProblem } from './verification-link.js';

const SOURCE_TAKEN = { fileUuid: ['The file uuid has already been used.'] };

/** The entity a reference holds when `relate` just loaded it; else one lookup (deleted rows included: it was valid when set). */
async function entityOf<T extends { uuid: string }>(tx: RequestContext, entity: EntityClass<T>, reference: Ref<T>): Promise<T> {
  if (reference.isInitialized()) return reference.getEntity() as T;
  return tx.em.findOneOrFail(entity, { uuid: reference.uuid } as never, { filters: { live: false } });
}

/** Certificates: drafts change freely; `finish` issues; issued ones are immutable until revoked or expired. */
export class CertificateService extends ResourceService<Certificate, CertificateInput> {
  protected readonly entity = Certificate;
  protected readonly label = 'Certificate';
  protected readonly defaults: Partial<CertificateInput> = {
    cohortUuid: null,
    enrollmentUuid: null,
    publicVerificationUrl: null,
    expiresAt: null,
    blockchainTxHash: null,
    blockchainTxUrl: null,
    finish: false,
  };
  protected readonly whereColumns = {
    institutionUuid: 'institution',
    courseUuid: 'course',
    studentUuid: 'student',
    cohortUuid: 'cohort',
    enrollmentUuid: 'enrollment',
    templateUuid: 'template',
  };
  protected readonly uuidWhereFields = Object.keys(this.whereColumns);
  protected readonly uniqueViolations = { certificates_source_file_unique: SOURCE_TAKEN };

  /** `status` filters by what a certificate reads as: an issued one past its expiry is `expired`. */
  protected filter(where: { status?: CertificateStatus } | undefined): Record<string, unknown> {
    const { status, ...rest } = where ?? {};
    const filter = super.filter(rest);
    const now = new Date();
    if (status === CertificateStatus.expired) filter.$or = [{ status: 'expired' }, pastExpiryWhere(now)];
    else if (status === CertificateStatus.issued) Object.assign(filter, { status }, notPastExpiryWhere(now));
    else if (status) filter.status = status;
    return filter;
  }

  protected async apply(tx: RequestContext, row: Certificate, input: Partial<CertificateInput>, mode: WriteMode): Promise<void> {
    if (mode !== 'create' && row.status !== CertificateStatus.draft) {
      throw conflict(`The certificate is ${effectiveStatus(row)}; only drafts can be changed.`);
    }
    await this.relate(tx, row, 'institution', Institution, input, 'institutionUuid');
    await this.relate(tx, row, 'course', Course, input, 'courseUuid');
    await this.relate(tx, row, 'student', Student, input, 'studentUuid');
    await this.relate(tx, row, 'cohort', Cohort, input, 'cohortUuid');
    await this.relate(tx, row, 'enrollment', Enrollment, input, 'enrollmentUuid');
    await this.relate(tx, row, 'template', CertificateTemplate, input, 'templateUuid');
    if (mode !== 'update' && !input.templateUuid) {
      const fallback = await certificateTemplates.findDefault(tx, row.institution.uuid);
      row.template = fallback ? ref(fallback) : null;
    }
    if (input.publicVerificationUrl) await this.checkVerificationLink(tx, input.publicVerificationUrl);
    assignPresent(row, input, ['publicVerificationUrl', 'expiresAt', 'blockchainTxHash', 'blockchainTxUrl']);
    row.publicVerificationUrl = verificationUrl(row, tx.publicBaseUrl);
    await this.checkAgreement(tx, row);
    if (input.fileUuid !== undefined && input.fileUuid !== row.sourceFile?.uuid) await this.takeSource(tx, row, input.fileUuid);
    if (input.finish) {
      tx.em.persist(row);
      await issue(tx, row);
    }
  }

  /** Course of the institution, enrollment of this student in this course, cohort of the course, template of the institution. */
  private async checkAgreement(tx: RequestContext, row: Certificate): Promise<void> {
    const errors: FieldErrors = {};
    const course = await entityOf(tx, Course, row.course);
    if (course.institution.uuid !== row.institution.uuid) errors.courseUuid = ['The course does not belong to the institution.'];
    if (row.enrollment) {
      const enrollment = await entityOf(tx, Enrollment, row.enrollment);
      if (enrollment.student.uuid !== row.student.uuid || enrollment.course.uuid !== row.course.uuid) {
        errors.enrollmentUuid = ['The enrollment is not the student’s enrollment in the course.'];
      }
    }
    if (row.cohort) {
      const cohort = await entityOf(tx, Cohort, row.cohort);
      if (cohort.course.uuid !== row.course.uuid) errors.cohortUuid = ['The cohort does not belong to the course.'];
    }
    if (row.template) {
      const template = await entityOf(tx, CertificateTemplate, row.template);
      if (template.institution.uuid !== row.institution.uuid) errors.templateUuid = ['The template belongs to another institution.'];
    }
    if (Object.keys(errors).length > 0) throw invalid(errors);
  }

  /** The link goes out in the student's e-mail and on the PDF: see verification-link.ts. */
  private async checkVerificationLink(tx: RequestContext, link: string): Promise<void> {
    const tenant = await tx.em.findOneOrFail(Tenant, { uuid: tx.tenant.uuid });
    const problem = verificationLinkProblem(link, tx.publicBaseUrl, tenant.allowedLinkHosts);
    if (problem) throw invalid({ publicVerificationUrl: [problem] });
  }

  /** Takes the new source file atomically (one winner among concurrent requests) and frees the previous one. */
  private async takeSource(tx: RequestContext, row: Certificate, fileUuid: string): Promise<void> {
    const previous = row.sourceFile?.uuid;
    await files.take(tx.em, fileUuid, row.uuid);
    row.sourceFile = ref(await tx.em.findOneOrFail(StoredFile, { uuid: fileUuid }));
    if (previous) await files.release(tx.em, previous, row.uuid);
  }

  /** Issues a draft (the `finish` of an update without other changes). */
  issue(ctx: RequestContext, uuid: string): Promise<Certificate> {
    return this.update(ctx, uuid, { finish: true });
  }

  /** issued → revoked, with the reason shown publicly; the uploaded source file is released. */
  revoke(ctx: RequestContext, uuid: string, reason: string): Promise<Certificate> {
    if (!reason?.trim()) throw invalid({ reason: ['The reason field is required.'] });
    if (reason.length > 2000) throw invalid({ reason: ['The reason may not be greater than 2000 characters.'] });
    return this.write(ctx, async (tx) => {
      const row = await this.get(tx, uuid);
      if (effectiveStatus(row) !== CertificateStatus.issued) throw conflict(`Only issued certificates can be revoked; this one is ${effectiveStatus(row)}.`);
      Object.assign(row, { status: CertificateStatus.revoked, revokedAt: new Date(), revocationReason: reason.trim() });
      await files.release(tx.em, row.sourceFile.uuid, row.uuid);
      return row;
    });
  }

  /** A deleted certificate frees its uploaded source file. */
  protected async beforeDelete(tx: RequestContext, rows: Certificate[]): Promise<void> {
    for (const row of rows) await files.release(tx.em, row.sourceFile.uuid, row.uuid);
  }
}

export const certificates = new CertificateService();
