import { signingSeconds } from '../metrics/domain-metrics.js';
import { ref, type EntityClass, type Ref } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { attachedModules, transcriptListing } from '../courses/attached-modules.js';
import { Course } from '../courses/course.entity.js';
import type { TenantScopedEntity } from '../db/base.entity.js';
import { invalidReference, referenced } from '../db/lookup.js';
import { LIVE_FILTER } from '../db/tenant-scope.js';
import { localeOf } from '../i18n/locales.js';
import { DocumentError } from '../documents/document-error.js';
import type { LayoutDrawing, PreparedSigner, TranscriptData } from '../documents/index.js';
import { sealPlacement } from '../documents/seal-placement.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { invalid } from '../errors/domain-error.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { Institution } from '../institutions/institution.entity.js';
import { enqueueNotification } from '../notifications/notification.outbox.js';
import { certificateEvent } from '../webhooks/webhook-events.js';
import { enqueueWebhookEvents } from '../webhooks/webhook.outbox.js';
import { Student } from '../students/student.entity.js';
import { certificateFacts } from './certificate-events.js';
import { CertificateTemplate } from '../templates/certificate-template.entity.js';
import { CertificateDocument, CertificateFileType } from './certificate-document.entity.js';
import { documentDesign } from './document-design.js';
import { displayName, EXPIRY_NOT_AFTER_ISSUE, expiresBy, verificationUrl } from './certificate-rules.js';
import { type Certificate, CertificateStatus } from './certificate.entity.js';
import { issuedMessage } from './issued-message.js';
import { emailedOffer } from '../wallets/emailed-offer.js';
import { institutionSigner } from './signing-identity.service.js';
import { issueOpenBadgeCredential } from '../badges/v3/credential.service.js';
import { templateDrawing } from '../templates/template-drawing.js';
import { placeholderValues } from './certificate-drawing.js';

/** CONTRACT "Rendering": without a file, the template must draw the certificate. */
export const SOURCE_REQUIRED = { fileUuid: ['The file uuid field is required unless the template has a layout (design_config.elements).'] };

const BADGE_ISSUER_WITHOUT_EMAIL = {
  institutionUuid: ['The institution issues Open Badges but has no email; set the institution’s email before issuing.'],
};

/** What the draft's rules loaded and checked (certificate.service.ts); issuance reuses it. */
export interface CheckedDraft {
  course: Course;
  enrollment: Enrollment | null;
  template: CertificateTemplate | null;
}

/** A party issuance names on the documents: it must still be live now, whatever it was when the draft was written. */
async function liveParty<T extends TenantScopedEntity>(ctx: RequestContext, entity: EntityClass<T>, reference: Ref<T>, field: string): Promise<T> {
  const row = await referenced(ctx.em, entity, reference);
  if (row.deletedAt) throw invalidReference(field);
  return row;
}

/** What issuance reads beyond the checked draft: the parties as they are now (live), the course's modules. */
async function gather(ctx: RequestContext, certificate: Certificate, checked: CheckedDraft, source: StoredFile | null) {
  const em = ctx.em;
  const institution = await liveParty(ctx, Institution, certificate.institution, 'institutionUuid');
  // Institutions that enabled badges before the contact e-mail was required issue no badge without it.
  if (institution.isBadgesEnabled && !institution.email) throw invalid(BADGE_ISSUER_WITHOUT_EMAIL);
  const student = await liveParty(ctx, Student, certificate.student, 'studentUuid');
  const course = checked.course;
  if (course.deletedAt) throw invalidReference('courseUuid');
  if (checked.enrollment?.deletedAt) throw invalidReference('enrollmentUuid');
  const enrollment = checked.enrollment ?? (await em.findOne(Enrollment, { student, course }, { orderBy: { enrolledAt: 'desc' } }));
  const attachments = await attachedModules(em, course);
  // The design is a lazy column (db/rows.ts): the documents are one of its readers.
  if (checked.template) await em.populate(checked.template, ['designConfig'], { filters: { [LIVE_FILTER]: false } });
  return { institution, course, student, enrollment, attachments, source, template: checked.template };
}

type Parties = Awaited<ReturnType<typeof gather>>;

function transcriptOf(parts: Parties, certificate: Certificate, url: string, issuedAt: Date): TranscriptData {
  return {
    institutionName: parts.institution.name,
    student: { name: displayName(parts.student), dateOfBirth: parts.student.dateOfBirth },
    course: { name: parts.course.name, code: parts.course.code },
    ...transcriptListing(parts.attachments),
    enrollment: parts.enrollment ? { grade: parts.enrollment.grade, completedAt: parts.enrollment.completedAt } : null,
    certificate: { uuid: certificate.uuid, verificationUrl: url, issuedAt },
    locale: localeOf(certificate.locale) ?? undefined,
  };
}

/** What the certificate is made from: the uploaded PDF, or the page its template draws. */
type CertificateSource = { source: Buffer } | { layout: LayoutDrawing };

/**
 * Stamps and signs the upload (or draws the template's page and signs it) and the transcript on a
 * document worker: uploads and the files a template draws are untrusted input.
 */
async function signedDocuments(ctx: RequestContext, signer: PreparedSigner, from: CertificateSource, transcript: TranscriptData, parts: Parties, url: string) {
  const reference = {
    credentialUuid: transcript.certificate.uuid,
    verificationUrl: url,
    signerName: parts.institution.name,
    location: parts.institution.country,
  };
  const signing = signingSeconds.startTimer();
  try {
    const documents = await ctx.documents.issue(
      {
        ...from,
        transcript,
        signing: signer.material,
        certificateDetails: { ...reference, reason: `Certificate: ${parts.course.name}`, seal: sealPlacement(parts.template?.designConfig) },
        transcriptDetails: { ...reference, reason: `Academic transcript: ${parts.course.name}` },
      },
      ctx.jobOwner,
    );
    signing({ outcome: 'signed' });
    return documents;
  } catch (error) {
    signing({ outcome: 'failed' });
    if (error instanceof DocumentError) throw invalid({ ['source' in from ? 'fileUuid' : 'templateUuid']: [error.message] }, error.reason);
    throw error;
  }
}

/** What issuance made before its transaction: the parties it read, its time and link, the signed PDFs. */
export interface PreparedIssuance {
  parts: Parties;
  issuedAt: Date;
  url: string;
  certificatePdf: Buffer;
  transcriptPdf: Buffer;
  /** The page the template drew, when the certificate had no uploaded source: it becomes the source. */
  renderedPdf?: Buffer;
}

/**
 * Everything issuance reads and makes, before any transaction opens (so none is held while PDFs are
 * signed): the parties as they are now, the institution's signer (made on first use in its own short
 * transaction), the signed upload and the signed transcript. `source` is the file the certificate
 * holds or is about to take.
 */
export async function prepareIssuance(
  ctx: RequestContext,
  certificate: Certificate,
  checked: CheckedDraft,
  source: StoredFile | null,
): Promise<PreparedIssuance> {
  const parts = await gather(ctx, certificate, checked, source);
  const issuedAt = new Date();
  if (expiresBy(certificate.expiresAt, issuedAt)) throw invalid(EXPIRY_NOT_AFTER_ISSUE);
  const url = verificationUrl(certificate, ctx.publicBaseUrl);
  const signer = await institutionSigner(ctx, parts.institution);
  const transcript = { ...transcriptOf(parts, certificate, url, issuedAt), design: await documentDesign(ctx, parts.institution, parts.template) };
  const from = source ? { source: await files.read(ctx, source) } : { layout: await drawnPage(ctx, certificate, parts, issuedAt, url) };
  const documents = await signedDocuments(ctx, signer, from, transcript, parts, url);
  return { parts, issuedAt, url, ...documents };
}

/** The page the certificate's template draws for it; 422 when there is none to draw. */
async function drawnPage(ctx: RequestContext, certificate: Certificate, parts: Parties, issuedAt: Date, url: string): Promise<LayoutDrawing> {
  const drawing = parts.template && (await templateDrawing(ctx, parts.template, placeholderValues(parts, certificate, issuedAt), url));
  if (!drawing) throw invalid(SOURCE_REQUIRED);
  return drawing;
}

/**
 * Issues a draft inside the caller's transaction from what `prepareIssuance` made: stores the signed
 * PDFs as files of the certificate, freezes the recipient snapshot, queues the student's notification
 * and the webhook event. Any failure rolls all of it back. Returns the certificate's new documents.
 */
export async function recordIssuance(
  tx: RequestContext,
  certificate: Certificate,
  prepared: PreparedIssuance,
  { notify }: { notify: boolean },
): Promise<CertificateDocument[]> {
  const { parts, issuedAt, url } = prepared;
  const stem = parts.source?.originalName.replace(/\.pdf$/i, '') ?? `certificate-${certificate.uuid}`;
  const kinds = [
    { type: CertificateFileType.certificate, bytes: prepared.certificatePdf, originalName: `${stem}-signed.pdf` },
    { type: CertificateFileType.transcript, bytes: prepared.transcriptPdf, originalName: `transcript-${certificate.uuid}.pdf` },
  ];
  const rendered = prepared.renderedPdf ? [{ bytes: prepared.renderedPdf, originalName: `${stem}.pdf` }] : [];
  const stored = await files.storeGenerated(
    tx,
    [...kinds, ...rendered].map(({ bytes, originalName }) => ({ bytes, originalName, mimeType: 'application/pdf', usedByUuid: certificate.uuid })),
  );
  const documents = kinds.map(({ type }, index) => tx.em.create(CertificateDocument, { certificate, file: stored[index]!, type }));
  // The drawn page is the certificate's source from now on, held like an upload (used_at set).
  if (rendered.length > 0) certificate.sourceFile = ref(stored[kinds.length]!);

  Object.assign(certificate, {
    status: CertificateStatus.issued,
    issuedAt,
    publicVerificationUrl: url,
    recipientName: parts.student.name,
    recipientSocialName: parts.student.socialName ?? null,
    recipientEmail: parts.student.email,
    recipientDateOfBirth: parts.student.dateOfBirth,
  });
  // The student's wallet offer (docs/wallets.md) rides in the e-mail, as a QR code and a link, while badges are on.
  if (notify) {
    const walletOffer = parts.institution.isBadgesEnabled ? await emailedOffer(tx, certificate.uuid, url, parts.institution.isWalletPinRequired) : null;
    const message = { certificate, student: parts.student, course: parts.course, institution: parts.institution, url, publicBaseUrl: tx.publicBaseUrl };
    enqueueNotification(tx.em, issuedMessage({ ...message, walletOffer }));
  }
  enqueueWebhookEvents(tx.em, [certificateEvent('certificate.issued', certificateFacts(certificate))]);
  // Open Badges 3.0: last, because the status index it draws holds the institution's list row until commit.
  if (parts.institution.isBadgesEnabled) await issueOpenBadgeCredential(tx, { certificate, ...parts });
  return documents;
}
