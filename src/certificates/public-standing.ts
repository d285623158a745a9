import { DomainError } from '../errors/domain-error.js';
import { CertificateStatus } from './certificate.entity.js';
import { isPastExpiry } from './certificate-rules.js';

/**
 * The one lifecycle rule of public documents (CONTRACT "Public lifecycle, one rule"): what every
 * public surface — verification page and API, the PDF check, Open Badges 2.0 and 3.0, baked images,
 * portfolio pages — says about a certificate. Surfaces map a standing to their own shape
 * (docs/public-lifecycle.md has the table); none decides on its own.
 *
 * - `absent`: no such certificate for the public (unknown uuid, or a draft).
 * - `withdrawn`: the certificate or its institution was deleted; it is no longer issued here.
 * - `revoked`, `expired`, `valid`: the issued certificate's state now.
 */
export type PublicStanding = 'absent' | 'withdrawn' | 'revoked' | 'expired' | 'valid';

export interface StandingCertificate {
  status: CertificateStatus;
  expiresAt?: Date | null;
  deletedAt?: Date | null;
}

export interface StandingInstitution {
  deletedAt?: Date | null;
}

/** The certificate's public standing; both rows are read including deleted ones (null: no such row). */
export function publicStanding(certificate: StandingCertificate | null, institution: StandingInstitution | null, now = new Date()): PublicStanding {
  if (!certificate || certificate.status === CertificateStatus.draft) return 'absent';
  if (certificate.deletedAt || !institution || institution.deletedAt) return 'withdrawn';
  if (certificate.status === CertificateStatus.revoked) return 'revoked';
  if (certificate.status === CertificateStatus.expired || isPastExpiry(certificate, now)) return 'expired';
  return 'valid';
}

/** Whether the public may still be shown the certificate at all (facts, portfolio item, badge documents). */
export const isPubliclyShown = (standing: PublicStanding): standing is 'revoked' | 'expired' | 'valid' => standing !== 'absent' && standing !== 'withdrawn';

export interface BadgeSettings extends StandingInstitution {
  isBadgesEnabled: boolean;
  badgeImageUuid?: string | null;
}

/**
 * Whether the institution serves badge documents now: badges on and an image to bake. Turning
 * badges off hides every badge document (404) for new requests; it never changes a standing, so a
 * revoked badge is revoked again the moment badges come back.
 */
export const servesBadges = (institution: BadgeSettings): boolean => institution.isBadgesEnabled && !!institution.badgeImageUuid;

/**
 * A certificate's standing as its badge documents answer it: `absent` (404) while the institution
 * serves no badges, else the certificate's standing (withdrawn and revoked: 410 with the revoked stub).
 */
export function badgeStanding(certificate: StandingCertificate | null, institution: BadgeSettings | null, now = new Date()): PublicStanding {
  if (!institution || !servesBadges(institution)) return 'absent';
  return publicStanding(certificate, institution, now);
}

/**
 * An institution's issuer documents (issuer profiles, badge classes, revocation list): `absent` (404)
 * while it serves no badges or does not exist, `withdrawn` (410) once deleted, else `valid`.
 */
export function issuerStanding(institution: BadgeSettings | null): 'absent' | 'withdrawn' | 'valid' {
  if (!institution || !servesBadges(institution)) return 'absent';
  return institution.deletedAt ? 'withdrawn' : 'valid';
}

/** What a withdrawn certificate's public JSON answers: 410, and nothing about it but that. */
export const certificateWithdrawn = () => new DomainError('GONE', 'The certificate was withdrawn by its issuer.', undefined, 'CERTIFICATE_WITHDRAWN');

/** What the issuer documents of a deleted institution answer: 410. */
export const issuerWithdrawn = () => new DomainError('GONE', 'The institution was deleted; it no longer issues here.', undefined, 'ISSUER_WITHDRAWN');
