import type { OutboxMessage } from '../notifications/notification.outbox.js';
import type { Course } from '../courses/course.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { bakedBadgeLink } from '../badges/badge-urls.js';
import { displayName } from './certificate-rules.js';
import type { Certificate } from './certificate.entity.js';
import { issuedEmailHtml } from './issued-email.js';

/** The email a student receives when a certificate is issued to them. */
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
  const subject = `Your certificate for ${course.name} from ${institution.name}`;
  const textBody = [
    `Dear ${name},`,
    '',
    `${institution.name} has issued your certificate for ${course.name}.`,
    '',
    `View and verify it, and download the signed PDF and your transcript, at:`,
    url,
    '',
    ...(badge ? ['Download your Open Badge (an image with the credential baked in, for badge backpacks and profiles):', badge, ''] : []),
    `Certificate ID: ${certificate.uuid}`,
  ].join('\n');
  const htmlBody = issuedEmailHtml({
    name,
    institutionName: institution.name,
    courseName: course.name,
    url,
    certificateUuid: certificate.uuid,
    badgeUrl: badge,
  });
  return { kind: 'certificate_issued', recipientEmail: student.email, recipientName: name, subject, textBody, htmlBody, referenceUuid: certificate.uuid };
}
