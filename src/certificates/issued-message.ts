import type { OutboxMessage } from '../notifications/notification.outbox.js';
import type { Course } from '../courses/course.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { bakedBadgeLink } from '../badges/badge-urls.js';
import { displayName } from './certificate-rules.js';
import type { Certificate } from './certificate.entity.js';
import { issuedEmailHtml } from './issued-email.js';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';
import { messagesFor } from '../i18n/messages.js';

/** The email a student receives when a certificate is issued to them, in the certificate's language. */
export function issuedMessage({
  certificate,
  student,
  course,
  institution,
  url,
  publicBaseUrl,
  locale = DEFAULT_LOCALE,
}: {
  certificate: Certificate;
  student: Student;
  course: Course;
  institution: Institution;
  url: string;
  publicBaseUrl: string;
  locale?: Locale;
}): OutboxMessage {
  const m = messagesFor(locale).email;
  const badge = bakedBadgeLink(institution, certificate.uuid, publicBaseUrl);
  const name = displayName(student);
  const subject = m.subject(course.name, institution.name);
  const textBody = [
    m.greeting(name),
    '',
    m.issued(institution.name, course.name),
    '',
    m.viewAt,
    url,
    '',
    ...(badge ? [m.badgeAt, badge, ''] : []),
    `${m.certificateId}: ${certificate.uuid}`,
  ].join('\n');
  const htmlBody = issuedEmailHtml({
    m,
    name,
    institutionName: institution.name,
    courseName: course.name,
    url,
    certificateUuid: certificate.uuid,
    badgeUrl: badge,
  });
  return { kind: 'certificate_issued', recipientEmail: student.email, recipientName: name, subject, textBody, htmlBody, referenceUuid: certificate.uuid };
}
