import type { OutboxMessage } from '../notifications/notification.outbox.js';
import type { Course } from '../courses/course.entity.js';
import type { Institution } from '../institutions/institution.entity.js';
import type { Student } from '../students/student.entity.js';
import { bakedBadgeLink } from '../badges/badge-urls.js';
import { displayName } from './certificate-rules.js';
import type { Certificate } from './certificate.entity.js';
import { issuedEmailHtml } from './issued-email.js';
import { DEFAULT_LOCALE, localeOf, type Locale } from '../i18n/locales.js';
import { messagesFor } from '../i18n/messages.js';
import type { WalletOffer } from '../wallets/emailed-offer.js';

/** The email a student receives when a certificate is issued to them, in the certificate's language. */
export function issuedMessage({
  certificate,
  student,
  course,
  institution,
  url,
  publicBaseUrl,
  locale = DEFAULT_LOCALE,
  walletOffer = null,
}: {
  certificate: Certificate;
  student: Pick<Student, 'name' | 'socialName' | 'email'>;
  course: Course;
  institution: Institution;
  url: string;
  publicBaseUrl: string;
  locale?: Locale;
  /** An OpenID4VCI offer of the credentials, when the institution issues badges. */
  walletOffer?: WalletOffer | null;
}): OutboxMessage {
  const m = messagesFor(localeOf(certificate.locale) ?? locale).email;
  const badge = bakedBadgeLink(institution, certificate.uuid, publicBaseUrl);
  const name = displayName(student);
  const subject = m.subject(course.name, institution.name);
  const textBody = [
    m.greeting(name),
    '',
    m.issued(institution.name, course.name),
    '',
    m.viewAt,
    walletOffer?.pageUrl ?? url,
    '',
    ...(badge ? [m.badgeAt, badge, ''] : []),
    ...(walletOffer ? [m.walletAt(walletOffer.expiresAt.toISOString().slice(0, 10)), walletOffer.offerUrl, ''] : []),
    ...(walletOffer?.txCode ? [m.walletPin(walletOffer.txCode), ''] : []),
    `${m.certificateId}: ${certificate.uuid}`,
  ].join('\n');
  const htmlBody = issuedEmailHtml({
    m,
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
