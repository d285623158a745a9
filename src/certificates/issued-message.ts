import type { OutboxMessage } from '../notifications/notification.outbox.js';
import type { Course } from '../courses/course.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { bakedBadgeLink } from '../badges/badge-urls.js';
import { displayName } from './certificate-rules.js';
import type { Certificate } from './certificate.entity.js';
import { issuedEmailHtml } from './issued-email.js';
import { issuedEmailMessages } from './issued-email-messages.js';

/** The email a student receives when a certificate is issued to them, in the certificate's language. */
export function issuedMessage({
  certificate,
  student,
  course,
  institution,
  url,
  publicBaseUrl,
}: {
  certificate: Certificate;
  student: Pick<Student, 'name' | 'socialName' | 'email'>;
  course: Course;
  institution: Institution;
  url: string;
  publicBaseUrl: string;
}): OutboxMessage {
  const badge = bakedBadgeLink(institution, certificate.uuid, publicBaseUrl);
  const name = displayName(student);
  const m = issuedEmailMessages(certificate.locale);
  const subject = m.subject(course.name, institution.name);
  const textBody = [
    m.greeting(name),
    '',
    `${m.issued.before(institution.name)}${course.name}${m.issued.after}`,
    '',
    m.verifyText,
    url,
    '',
    ...(badge ? [m.badgeText, badge, ''] : []),
    `${m.certificateId}: ${certificate.uuid}`,
  ].join('\n');
  const htmlBody = issuedEmailHtml({
    messages: m,
    name,
    institutionName: institution.name,
    courseName: course.name,
    url,
    certificateUuid: certificate.uuid,
    badgeUrl: badge,
  });
  return { kind: 'certificate_issued', recipientEmail: student.email, recipientName: name, subject, textBody, htmlBody, referenceUuid: certificate.uuid };
}
