import { certificatesIssued, certificatesRevoked } from '../metrics/domain-metrics.js';
import { ref } from '@mikro-orm/core';
import type { PublicContext, RequestContext } from '../context/request-context.js';
import { Cohort } from '../courses/cohort.entity.js';
import { Course } from '../courses/course.entity.js';
import { referenced } from '../db/lookup.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { conflict, invalid, type FieldErrors } from '../errors/domain-error.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { Institution } from '../institutions/institution.entity.js';
import { assignPresent, type Relation, ResourceBase, type ResourceOperations, type WriteMode } from '../resources/resource.service.js';
import { Student } from '../students/student.entity.js';
import { CertificateTemplate } from '../templates/certificate-template.entity.js';
import { Tenant } from '../tenants/tenant.entity.js';
import { certificateTemplates } from '../templates/certificate-template.service.js';
import { Certificate, CertificateStatus } from './certificate.entity.js';
import { effectiveStatus, EXPIRY_NOT_AFTER_ISSUE, expiresBy, notPastExpiryWhere, pastExpiryWhere, verificationUrl } from './certificate-rules.js';
import { type CertificateInput, UpdateCertificateInput } from './certificate.inputs.js';
import { revokeStatus } from '../badges/v3/open-badges-v3.repository.js';
import { prepareIssuance, recordIssuance, SOURCE_REQUIRED, type CheckedDraft } from './issuance.js';
import { LIVE_FILTER } from '../db/tenant-scope.js';
import { hasLayout } from '../templates/template-layout.js';
import { certificateDocuments } from './certificate-documents.js';
import type { CertificateDocument } from './certificate-document.entity.js';
import type { Row } from '../db/rows.js';
import { certificateFacts, certificateFactsOfRow } from './certificate-events.js';
import { expireOverdueCertificates } from './certificate.repository.js';
import { certificateEvent } from '../webhooks/webhook-events.js';
import { enqueueWebhookEvents } from '../webhooks/webhook.outbox.js';
import { verificationLinkProblem } from './verification-link.js';
import { lostRecipientRace, resolveRecipient } from '../students/recipients.js';
import { externalIdViolation } from '../resources/external-id.js';
import { declareReferences } from '../resources/references.js';

/** What the draft's rules decided: the parties they checked, and the source file to take when it changes. */
interface AppliedDraft {
  checked: CheckedDraft;
  newSource?: string;
  /** A student the input's `recipient` registers: written in the transaction that writes the certificate. */
  newRecipient?: Student;
  /** Whether issuing e-mails the student (`notify: false` does not). */
  notify: boolean;
}

/** The parties and the source file a draft's input names (declared: the validation pass reports unknown ones with format errors). */
const RELATIONS = declareReferences<Relation<Certificate, CertificateInput>>(UpdateCertificateInput, [
  { property: 'institution', entity: Institution, field: 'institutionUuid' },
  { property: 'course', entity: Course, field: 'courseUuid', externalField: 'courseExternalId' },
  { property: 'student', entity: Student, field: 'studentUuid', externalField: 'studentExternalId' },
  { property: 'cohort', entity: Cohort, field: 'cohortUuid' },
  { property: 'enrollment', entity: Enrollment, field: 'enrollmentUuid' },
  { property: 'template', entity: CertificateTemplate, field: 'templateUuid' },
  // Read with the parties; issuance checks it (files.takeable) from the identity map.
  { entity: StoredFile, field: 'fileUuid' },
]);

const SOURCE_TAKEN = { fileUuid: ['The file uuid has already been used.'] };

/** Optional fields on create and PUT when the client leaves them out. */
const DRAFT_DEFAULTS: Partial<CertificateInput> = {
  cohortUuid: null,
  enrollmentUuid: null,
  publicVerificationUrl: null,
  expiresAt: null,
  attributes: null,
  externalId: null,
  locale: null,
  finish: false,
};

/** The student named more than one way (uuid, external id, recipient): the error, for the same 422 as the unknown references. */
function studentNamedTwice(input: Partial<CertificateInput>): FieldErrors {
  const ways = [input.studentUuid, input.studentExternalId, input.recipient].filter((way) => way != null).length;
  return ways > 1 ? { recipient: ['Name the student one way: student uuid, student external id or recipient.'] } : {};
}

/** Counts what a write did, once its transaction committed: an issuance or a revocation. */
function counted(certificate: Certificate): Certificate {
  if (certificate.status === CertificateStatus.issued) certificatesIssued.inc();
  else if (certificate.status === CertificateStatus.revoked) certificatesRevoked.inc();
  return certificate;
}

/**
 * Certificates and their state machine: draft → issued → revoked | expired. Drafts change freely
 * (createDraft, updateDraft); `issue` signs and freezes them; issued ones are immutable until revoked
 * or expired. create/update/replace with `finish: true` are a draft write followed by `issue`, in one
 * transaction.
 */
export class CertificateService extends ResourceBase<Certificate> implements ResourceOperations<Certificate, CertificateInput> {
  protected readonly entity = Certificate;
  protected readonly label = 'Certificate';
  protected readonly whereColumns = {
    institutionUuid: 'institution',
    courseUuid: 'course',
    studentUuid: 'student',
    cohortUuid: 'cohort',
    enrollmentUuid: 'enrollment',
    templateUuid: 'template',
    fileUuid: 'sourceFile',
  };
  protected readonly uuidWhereFields = Object.keys(this.whereColumns);
  protected readonly uniqueViolations = { certificates_source_file_unique: SOURCE_TAKEN, ...externalIdViolation('certificates') };

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

  /**
   * POST: a new draft, issued at once when `finish` is set. A batch job names the `uuid` up front, so
   * an item it finds already created after a restart is not created twice.
   */
  async create(ctx: RequestContext, input: CertificateInput, uuid?: string): Promise<Certificate> {
    try {
      return await this.createOnce(ctx, input, uuid);
    } catch (error) {
      // A concurrent request registered the same new recipient first: this run finds that student.
      if (input.recipient && lostRecipientRace(error)) return this.createOnce(ctx, input, uuid);
      throw error;
    }
  }

  private createOnce(ctx: RequestContext, input: CertificateInput, uuid?: string): Promise<Certificate> {
    const certificate = new Certificate();
    if (uuid) certificate.uuid = uuid;
    if (input.finish) return this.issueAfter(ctx, certificate, true, () => this.applyDraft(ctx, certificate, { ...DRAFT_DEFAULTS, ...input }, 'create'));
    return this.write(ctx, async (tx) => {
      await this.createDraft(tx, certificate, input);
      return certificate;
    });
  }

  /** The rules of `create` without creating: the draft is written in a transaction that is rolled back. Throws what `create` would. */
  async check(ctx: RequestContext, input: CertificateInput): Promise<void> {
    const rollback = new Error('check only');
    await this.write(ctx, async (tx) => {
      await this.createDraft(tx, new Certificate(), input);
      throw rollback;
    }).catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  }

  /** PATCH: changes the fields sent on a draft, then issues it when `finish` is set. */
  async update(ctx: RequestContext, uuid: string, input: Partial<CertificateInput>): Promise<Certificate> {
    if (input.finish) {
      const certificate = await this.draft(ctx, uuid);
      return this.issueAfter(ctx, certificate, false, () => this.applyDraft(ctx, certificate, input, 'update'));
    }
    return this.write(ctx, async (tx) => {
      const certificate = await this.draft(tx, uuid);
      await this.updateDraft(tx, certificate, input, 'update');
      enqueueWebhookEvents(tx.em, [certificateEvent('certificate.updated', certificateFacts(certificate))]);
      return certificate;
    });
  }

  /** PUT: like PATCH, with optional fields not sent back to their defaults. */
  async replace(ctx: RequestContext, uuid: string, input: CertificateInput): Promise<Certificate> {
    const replacement = { ...DRAFT_DEFAULTS, ...input };
    if (input.finish) {
      const certificate = await this.draft(ctx, uuid);
      return this.issueAfter(ctx, certificate, false, () => this.applyDraft(ctx, certificate, replacement, 'replace'));
    }
    return this.write(ctx, async (tx) => {
      const certificate = await this.draft(tx, uuid);
      await this.updateDraft(tx, certificate, replacement, 'replace');
      enqueueWebhookEvents(tx.em, [certificateEvent('certificate.updated', certificateFacts(certificate))]);
      return certificate;
    });
  }

  /** draft → issued (`issueCertificate`): the draft as it stands, checked again, then signed and frozen. */
  async issue(ctx: RequestContext, uuid: string, notify = true): Promise<Certificate> {
    const certificate = await this.draft(ctx, uuid);
    return this.issueAfter(ctx, certificate, false, async () => ({ checked: await this.checkAgreement(ctx, certificate), notify }));
  }

  /**
   * Issuance in two steps. First, with no transaction open: the draft's rules (`rules` reads and
   * changes the certificate in memory only), the source file checked, the documents signed
   * (issuance.ts). Then one short transaction writes it all: the draft claimed (one winner among
   * concurrent issuers), the source taken (one winner among certificates racing for it), the signed
   * files, the certificate and its outbox rows. The response reads the documents it just wrote.
   */
  private async issueAfter(ctx: RequestContext, certificate: Certificate, isNew: boolean, rules: () => Promise<AppliedDraft>): Promise<Certificate> {
    const { checked, newSource, newRecipient, notify } = await rules();
    const held = certificate.sourceFile ? await referenced(ctx.em, StoredFile, certificate.sourceFile) : null;
    const source = newSource === undefined ? held : await files.takeable(ctx, newSource, certificate.uuid);
    const prepared = await prepareIssuance(ctx, certificate, checked, source);
    const documents = await this.write(ctx, async (tx) => {
      if (newRecipient) tx.em.persist(newRecipient);
      if (isNew) tx.em.persist(certificate);
      else await this.claimDraft(tx, certificate);
      if (newSource !== undefined) await this.takeSource(tx, certificate, newSource);
      return recordIssuance(tx, certificate, prepared, { notify });
    });
    certificateDocuments(ctx).prime(certificate.uuid, documents as unknown as Row<CertificateDocument>[]);
    return counted(certificate);
  }

  /** Of concurrent writers issuing one draft exactly one gets it; the others see what it became (409). */
  private async claimDraft(tx: RequestContext, certificate: Certificate): Promise<void> {
    const claimed = await tx.em.nativeUpdate(Certificate, { uuid: certificate.uuid, status: CertificateStatus.draft }, { status: CertificateStatus.issued });
    if (claimed === 0) throw conflict('The certificate is no longer a draft; only drafts can be changed.');
  }

  /** issued → revoked, with the reason shown publicly; the uploaded source file is released. */
  revoke(ctx: RequestContext, uuid: string, reason: string): Promise<Certificate> {
    if (!reason?.trim()) throw invalid({ reason: ['The reason field is required.'] });
    if (reason.length > 2000) throw invalid({ reason: ['The reason field must not be greater than 2000 characters.'] });
    return this.write(ctx, async (tx) => {
      const certificate = await this.get(tx, uuid);
      const status = effectiveStatus(certificate);
      if (status !== CertificateStatus.issued) throw conflict(`Only issued certificates can be revoked; this one is ${status}.`);
      Object.assign(certificate, { status: CertificateStatus.revoked, revokedAt: new Date(), revocationReason: reason.trim() });
      if (certificate.sourceFile) await files.release(tx, certificate.sourceFile.uuid, certificate.uuid);
      await revokeStatus(tx.em, certificate.uuid); // Open Badges 3.0 status list bit, in this transaction
      enqueueWebhookEvents(tx.em, [certificateEvent('certificate.revoked', certificateFacts(certificate))]);
      return certificate;
    }).then(counted);
  }

  /**
   * issued → expired for every certificate of every tenant past its expiry (the periodic sweeper).
   * They already read as expired before (certificate-rules.ts); this persists it.
   */
  async expireOverdue({ em }: Pick<PublicContext, 'em'>): Promise<number> {
    return em.transactional(async (tx) => {
      const expired = await expireOverdueCertificates(tx);
      for (const row of expired) enqueueWebhookEvents(tx, [certificateEvent('certificate.expired', certificateFactsOfRow(row))], String(row.tenant_uuid));
      return expired.length;
    });
  }

  /**
   * A deleted certificate frees its uploaded source file and is withdrawn publicly (public-standing.ts):
   * its Open Badges 3.0 status bit is set in this transaction, as a revocation's is.
   */
  protected async beforeDelete(tx: RequestContext, rows: Certificate[]): Promise<void> {
    for (const row of rows) {
      if (row.sourceFile) await files.release(tx, row.sourceFile.uuid, row.uuid);
      if (row.status !== CertificateStatus.draft) await revokeStatus(tx.em, row.uuid);
    }
  }

  /** A draft of this tenant, loaded for a change; anything else is immutable (409). */
  private async draft(tx: RequestContext, uuid: string): Promise<Certificate> {
    const certificate = await this.get(tx, uuid);
    if (certificate.status !== CertificateStatus.draft) throw conflict(`The certificate is ${effectiveStatus(certificate)}; only drafts can be changed.`);
    return certificate;
  }

  private async createDraft(tx: RequestContext, certificate: Certificate, input: CertificateInput): Promise<CheckedDraft> {
    const checked = await this.updateDraft(tx, certificate, { ...DRAFT_DEFAULTS, ...input }, 'create');
    tx.em.persist(certificate);
    return checked;
  }

  /** `applyDraft`, then the source file it names taken. */
  private async updateDraft(tx: RequestContext, certificate: Certificate, input: Partial<CertificateInput>, mode: WriteMode): Promise<CheckedDraft> {
    const { checked, newSource, newRecipient } = await this.applyDraft(tx, certificate, input, mode);
    if (newRecipient) tx.em.persist(newRecipient);
    if (newSource !== undefined) await this.takeSource(tx, certificate, newSource);
    return checked;
  }

  /**
   * Writes the fields present in `input` onto a draft, in memory: related rows of this tenant, the
   * template (the institution's default unless named), the verification link. Returns the parties
   * the rules loaded, which issuance reuses, and the source file to take when it changes.
   */
  private async applyDraft(ctx: RequestContext, certificate: Certificate, input: Partial<CertificateInput>, mode: WriteMode): Promise<AppliedDraft> {
    const newSource = input.fileUuid != null && input.fileUuid !== certificate.sourceFile?.uuid ? input.fileUuid : undefined;
    const recipient = input.recipient ? await resolveRecipient(ctx, input.recipient) : undefined;
    await this.relateAll(ctx, certificate, input, RELATIONS, studentNamedTwice(input));
    if (recipient) certificate.student = ref(recipient.student);
    if (mode !== 'update' && input.institutionUuid == null) certificate.institution = (await referenced(ctx.em, Course, certificate.course)).institution;
    if (mode !== 'update' && !input.templateUuid) {
      const fallback = await certificateTemplates.findDefault(ctx, certificate.institution.uuid);
      certificate.template = fallback ? ref(fallback) : null;
    }
    if (input.publicVerificationUrl) await this.checkVerificationLink(ctx, input.publicVerificationUrl);
    // Issuing can only come later; issuance checks again against its own time (issuance.ts).
    if (expiresBy(input.expiresAt, new Date())) throw invalid(EXPIRY_NOT_AFTER_ISSUE);
    assignPresent(certificate, input, ['publicVerificationUrl', 'expiresAt', 'attributes', 'locale']);
    await this.applyExternalId(ctx, certificate, input);
    certificate.publicVerificationUrl = verificationUrl(certificate, ctx.publicBaseUrl);
    const checked = await this.checkAgreement(ctx, certificate);
    if (!newSource && !certificate.sourceFile) await this.requireLayout(ctx, checked);
    return { checked, newSource, newRecipient: recipient?.isNew ? recipient.student : undefined, notify: input.notify !== false };
  }

  /** A certificate without a file is drawn by its template (CONTRACT "Rendering"); without a layout to draw, the file is required. */
  private async requireLayout(tx: RequestContext, { template }: CheckedDraft): Promise<void> {
    // The design is a lazy column (db/rows.ts).
    if (template) await tx.em.populate(template, ['designConfig'], { filters: { [LIVE_FILTER]: false } });
    if (!template || !hasLayout(template.designConfig)) throw invalid(SOURCE_REQUIRED);
  }

  /** Course of the institution, enrollment of this student in this course, cohort of the course, template of the institution. */
  private async checkAgreement(tx: RequestContext, certificate: Certificate): Promise<CheckedDraft> {
    const errors: FieldErrors = {};
    const course = await referenced(tx.em, Course, certificate.course);
    const enrollment = certificate.enrollment ? await referenced(tx.em, Enrollment, certificate.enrollment) : null;
    const cohort = certificate.cohort ? await referenced(tx.em, Cohort, certificate.cohort) : null;
    const template = certificate.template ? await referenced(tx.em, CertificateTemplate, certificate.template) : null;
    if (course.institution.uuid !== certificate.institution.uuid) errors.courseUuid = ['The course does not belong to the institution.'];
    if (enrollment && (enrollment.student.uuid !== certificate.student.uuid || enrollment.course.uuid !== certificate.course.uuid)) {
      errors.enrollmentUuid = ['The enrollment is not the student’s enrollment in the course.'];
    }
    if (cohort && cohort.course.uuid !== certificate.course.uuid) errors.cohortUuid = ['The cohort does not belong to the course.'];
    if (template && template.institution.uuid !== certificate.institution.uuid) errors.templateUuid = ['The template belongs to another institution.'];
    if (Object.keys(errors).length > 0) throw invalid(errors);
    return { course, enrollment, template };
  }

  /** The link goes out in the student's e-mail and on the PDF: see verification-link.ts. */
  private async checkVerificationLink(tx: RequestContext, link: string): Promise<void> {
    const tenant = await tx.em.findOneOrFail(Tenant, { uuid: tx.tenant.uuid });
    const problem = verificationLinkProblem(link, tx.publicBaseUrl, tenant.allowedLinkHosts);
    if (problem) throw invalid({ publicVerificationUrl: [problem] });
  }

  /** Takes the new source file atomically (one winner among concurrent requests) and frees the previous one. */
  private async takeSource(tx: RequestContext, certificate: Certificate, fileUuid: string): Promise<void> {
    const previous = certificate.sourceFile?.uuid;
    certificate.sourceFile = ref(await files.take(tx, fileUuid, certificate.uuid));
    if (previous) await files.release(tx, previous, certificate.uuid);
  }
}

export const certificates = new CertificateService();
