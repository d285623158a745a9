import type { RequestContext } from '../context/request-context.js';
import { Course } from '../courses/course.entity.js';
import { findOrFail, referenced } from '../db/lookup.js';
import { conflict, DomainError } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { Notification } from '../notifications/notification.entity.js';
import { enqueueNotification } from '../notifications/notification.outbox.js';
import { Student } from '../students/student.entity.js';
import { effectiveStatus } from './certificate-rules.js';
import { Certificate, CertificateStatus } from './certificate.entity.js';
import { issuedMessage } from './issued-message.js';

/** E-mails about one certificate (its first one included) within `RESEND_WINDOW_MS`: a resend past it is a 429. */
export const RESENDS_PER_WINDOW = 3;
export const RESEND_WINDOW_MS = 60 * 60 * 1000;

/**
 * Queues the issued certificate's e-mail again (`POST /certificates/{uuid}/notifications`), to the
 * student's current address (the snapshot's when the student is deleted), greeting the name the
 * certificate names. Only issued certificates; at most RESENDS_PER_WINDOW e-mails a window, counted
 * under the certificate's row lock so concurrent resends cannot pass the limit together.
 */
export function resendIssuedMessage(ctx: RequestContext, uuid: string): Promise<Certificate> {
  return ctx.em.transactional(async (em) => {
    const certificate = await findOrFail(em, Certificate, uuid, 'Certificate');
    await em.lock(certificate, 4 /* PESSIMISTIC_WRITE */);
    const status = effectiveStatus(certificate);
    if (status !== CertificateStatus.issued) throw conflict(`Only issued certificates are e-mailed; this one is ${status}.`);
    const since = new Date(Date.now() - RESEND_WINDOW_MS);
    const recent = await em.find(Notification, { referenceUuid: uuid, createdAt: { $gte: since } }, { orderBy: { createdAt: 'asc' }, fields: ['createdAt'] });
    if (recent.length >= RESENDS_PER_WINDOW) {
      const retryAfter = Math.max(1, Math.ceil((recent[0]!.createdAt.getTime() + RESEND_WINDOW_MS - Date.now()) / 1000));
      throw new DomainError('TOO_MANY_REQUESTS', `At most ${RESENDS_PER_WINDOW} e-mails about a certificate an hour.`, undefined, 'notification_rate_limited', {
        retryAfter: String(retryAfter),
      });
    }
    const student = await em.findOne(Student, { uuid: certificate.student.uuid });
    const [course, institution] = [await referenced(em, Course, certificate.course), await referenced(em, Institution, certificate.institution)];
    const recipient = {
      name: certificate.recipientName!,
      socialName: certificate.recipientSocialName ?? null,
      email: student?.email ?? certificate.recipientEmail!,
    };
    const url = certificate.publicVerificationUrl!;
    enqueueNotification(em, issuedMessage({ certificate, student: recipient, course, institution, url, publicBaseUrl: ctx.publicBaseUrl }));
    return certificate;
  });
}
