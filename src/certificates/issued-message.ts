import type { OutboxMessage } from '../notifications/notification.outbox.js';
import type { Course } from '../courses/course.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { bakedBadgeLink } from '../badges/badge-urls.js';
import { displayName } from './certificate-rules.js';
import type { Certificate } from './certificate.entity.js';
import { issuedEmailHtml } from './issued-email.js';
import type { WalletOffer } from '../wallets/emailed-offer.js';

/** The email a student receives when a certificate is issued to them. */
export function issuedMessage({
  certificate,
  student,
  course,
  institution,
  url,
  publicBaseUrl,
  walletOffer = null,
}: {
  certificate: Certificate;
  student: Student;
  course: Course;
  institution: Institution;
  url: string;
  publicBaseUrl: string;
  /** An OpenID4VCI offer of the credentials, when the institution issues badges. */
  walletOffer?: WalletOffer | null;
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
    walletOffer?.pageUrl ?? url,
    '',
    ...(badge ? ['Download your Open Badge (an image with the credential baked in, for badge backpacks and profiles):', badge, ''] : []),
    ...(walletOffer
      ? [
          `Add your credentials to a digital wallet (OpenID4VCI; the offer works once, until ${walletOffer.expiresAt.toISOString().slice(0, 10)}):`,
          walletOffer.offerUrl,
          '',
        ]
      : []),
    `Certificate ID: ${certificate.uuid}`,
  ].join('\n');
  const htmlBody = issuedEmailHtml({
    name,
    institutionName: institution.name,
    courseName: course.name,
    url: walletOffer?.pageUrl ?? url,
    certificateUuid: certificate.uuid,
    badgeUrl: badge,
    walletOffer,
  });
  return { kind: 'certificate_issued', recipientEmail: student.email, recipientName: name, subject, textBody, htmlBody, referenceUuid: certificate.uuid };
}
