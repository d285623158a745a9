import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context.js';
import { CourseModule } from '../courses/course-module.entity.js';
import { Course } from '../courses/course.entity.js';
import { requireRelated } from '../db/lookup.js';
import { DocumentError, WorkerJobError, type PreparedSigner, type TranscriptData } from '../documents/index.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { DomainError, invalid } from '../errors/domain-error.js';
import { StoredFile } from '../files/file.entity.js';
import { files } from '../files/file.service.js';
import { Institution } from '../institutions/institution.entity.js';
import { enqueueNotification } from '../notifications/notification.outbox.js';
import { Student } from '../students/student.entity.js';
import { CertificateDocument, CertificateFileType } from './certificate-document.entity.js';
import { documentDesign } from './document-design.js';
import { displayName, verificationUrl } from './certificate-rules.js';
import { type Certificate, CertificateStatus } from './certificate.entity.js';
import { issuedMessage } from './issued-message.js';
import { institutionSigner } from './signing-identity.service.js';

async function readContent(em: EntityManager, file: StoredFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await files.open(em, file)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What issuance reads: the parties as they are now (live), the enrollment, the course's modules. */
async function gather(tx: RequestContext, certificate: Certificate) {
  const em = tx.em;
  const institution = await requireRelated(em, Institution, certificate.institution.uuid, 'institutionUuid');
  const course = await requireRelated(em, Course, certificate.course.uuid, 'courseUuid');
  const student = await requireRelated(em, Student, certificate.student.uuid, 'studentUuid');
  const enrollment = certificate.enrollment
    ? await requireRelated(em, Enrollment, certificate.enrollment.uuid, 'enrollmentUuid')
    : await em.findOne(Enrollment, { student, course }, { orderBy: { enrolledAt: 'desc' } });
  const attachments = await em.find(CourseModule, { course }, { populate: ['module', 'group'], orderBy: { order: 'asc' } });
  const source = await em.findOneOrFail(StoredFile, { uuid: certificate.sourceFile.uuid });
  return { institution, course, student, enrollment, attachments, source };
}

function transcriptOf(parts: Awaited<ReturnType<typeof gather>>, certificate: Certificate, url: string, issuedAt: Date): TranscriptData {
  const groups = new Map(parts.attachments.flatMap((row) => (row.group ? [[row.group.uuid, row.group.getEntity()] as const] : [])));
  return {
    institutionName: parts.institution.name,
    student: { name: displayName(parts.student), dateOfBirth: parts.student.dateOfBirth },
    course: { name: parts.course.name, code: parts.course.code },
    moduleGroups: [...groups.values()].map((group) => ({ uuid: group.uuid, name: group.name, order: group.order })),
    modules: parts.attachments.map((row) => {
      const module = row.module.getEntity();
      return { code: module.code, name: module.name, workload: module.workload, credits: module.credits, order: row.order, groupUuid: row.group?.uuid ?? null };
    }),
    enrollment: parts.enrollment ? { grade: parts.enrollment.grade, completedAt: parts.enrollment.completedAt } : null,
    certificate: { uuid: certificate.uuid, verificationUrl: url, issuedAt },
  };
}

/** Stamps and signs the upload and the transcript on a document worker: the upload is untrusted input. */
async function signedDocuments(
  tx: RequestContext,
  signer: PreparedSigner,
  source: Buffer,
  transcript: TranscriptData,
  parts: Awaited<ReturnType<typeof gather>>,
  url: string,
) {
  const reference = {
    credentialUuid: transcript.certificate.uuid,
    verificationUrl: url,
    signerName: parts.institution.name,
    location: parts.institution.country,
  };
  try {
    return await tx.documents.issue({
      source,
      transcript,
      signing: signer.material,
      certificateDetails: { ...reference, reason: `Certificate: ${parts.course.name}` },
      transcriptDetails: { ...reference, reason: `Academic transcript: ${parts.course.name}` },
    });
  } catch (error) {
    if (error instanceof DocumentError) throw invalid({ fileUuid: [error.message] });
    if (error instanceof WorkerJobError && error.kind === 'busy') throw new DomainError('SERVICE_UNAVAILABLE', error.message);
    throw error;
  }
}

/**
 * Issues a draft inside the caller's transaction: freezes the recipient snapshot, signs the uploaded
 * PDF and a generated transcript with the institution's key, stores both as files of the certificate,
 * and queues the student's notification. Any failure rolls all of it back.
 */
export async function issue(tx: RequestContext, certificate: Certificate): Promise<void> {
  const parts = await gather(tx, certificate);
  const issuedAt = new Date();
  const url = verificationUrl(certificate, tx.publicBaseUrl);
  const signer = await institutionSigner(tx.em, parts.institution);
  const { certificatePdf, transcriptPdf } = await signedDocuments(
    tx,
    signer,
    await readContent(tx.em, parts.source),
    { ...transcriptOf(parts, certificate, url, issuedAt), design: await documentDesign(tx.em, parts.institution, certificate) },
    parts,
    url,
  );

  const stem = parts.source.originalName.replace(/\.pdf$/i, '');
  for (const [type, bytes, name] of [
    [CertificateFileType.certificate, certificatePdf, `${stem}-signed.pdf`],
    [CertificateFileType.transcript, transcriptPdf, `transcript-${certificate.uuid}.pdf`],
  ] as const) {
    const file = await files.storeGenerated(tx.em, { bytes, originalName: name, mimeType: 'application/pdf', usedByUuid: certificate.uuid });
    tx.em.create(CertificateDocument, { certificate, file, type });
  }

  Object.assign(certificate, {
    status: CertificateStatus.issued,
    issuedAt,
    publicVerificationUrl: url,
    recipientName: parts.student.name,
    recipientSocialName: parts.student.socialName ?? null,
    recipientEmail: parts.student.email,
    recipientDateOfBirth: parts.student.dateOfBirth,
  });
  enqueueNotification(tx.em, issuedMessage({ certificate, student: parts.student, course: parts.course, institution: parts.institution, url }));
}
