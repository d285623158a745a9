import type { CertificateFacts } from '../webhooks/webhook-events.js';
import type { Certificate } from './certificate.entity.js';

/** What a webhook event tells about a certificate, from the entity a transition just changed. */
export function certificateFacts(certificate: Certificate): CertificateFacts {
  return {
    uuid: certificate.uuid,
    status: certificate.status,
    issuedAt: certificate.issuedAt ?? null,
    expiresAt: certificate.expiresAt ?? null,
    revokedAt: certificate.revokedAt ?? null,
    revocationReason: certificate.revocationReason ?? null,
    publicVerificationUrl: certificate.publicVerificationUrl ?? null,
    institutionUuid: certificate.institution.uuid,
    courseUuid: certificate.course.uuid,
    studentUuid: certificate.student.uuid,
  };
}

/** The same facts from a raw row (the expiry sweeper updates across tenants in SQL: certificate.repository.ts). */
export function certificateFactsOfRow(row: Record<string, unknown>): CertificateFacts {
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  return {
    uuid: String(row.uuid),
    status: String(row.status),
    issuedAt: date(row.issued_at),
    expiresAt: date(row.expires_at),
    revokedAt: date(row.revoked_at),
    revocationReason: (row.revocation_reason as string | null) ?? null,
    publicVerificationUrl: (row.public_verification_url as string | null) ?? null,
    institutionUuid: String(row.institution_uuid),
    courseUuid: String(row.course_uuid),
    studentUuid: String(row.student_uuid),
  };
}
