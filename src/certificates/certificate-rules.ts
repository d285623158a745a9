import { CertificateStatus } from './certificate.entity.js';

/**
 * The certificate rules more than one place applies: expiry, the name shown, the verification link.
 * Pure functions; the queries that must run in the database take their SQL or filter form from here.
 */

interface Expiring {
  status: CertificateStatus;
  expiresAt?: Date | null;
}

/** An issued certificate is past its expiry from the expiry instant on (it reads as expired before the sweeper persists it). */
export const isPastExpiry = (certificate: Expiring, now = new Date()): boolean =>
  certificate.status === CertificateStatus.issued && !!certificate.expiresAt && certificate.expiresAt <= now;

export const effectiveStatus = (certificate: Expiring): CertificateStatus => (isPastExpiry(certificate) ? CertificateStatus.expired : certificate.status);

/** isPastExpiry as a row condition over `certificates`, for statements that must run in the database. */
export const PAST_EXPIRY_SQL = `status = 'issued' and expires_at <= now()`;

/** isPastExpiry as a MikroORM filter, and its complement among issued certificates. */
export const pastExpiryWhere = (now: Date) => ({ status: CertificateStatus.issued, expiresAt: { $lte: now } });
export const notPastExpiryWhere = (now: Date) => ({ $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });

/**
 * An expiry must come after the issue: a credential valid until before it was valid is refused by
 * VC 2.0 (validUntil ≥ validFrom) and meaningless in OB 2.0 (expires before issuedOn).
 */
export const expiresBy = (expiresAt: Date | null | undefined, issuedAt: Date): boolean => !!expiresAt && expiresAt <= issuedAt;
export const EXPIRY_NOT_AFTER_ISSUE = { expiresAt: ['The expires at field must be a date after the issue time.'] };

/** The name shown and printed: the social name when set, else the name. */
export const displayName = (person: { name: string; socialName?: string | null }): string => person.socialName?.trim() || person.name;

/** The link a certificate is verified at: the one given, else this service's public page. */
export function verificationUrl(certificate: { uuid: string; publicVerificationUrl?: string | null }, publicBaseUrl: string): string {
  return certificate.publicVerificationUrl ?? `${publicBaseUrl}/verify/${certificate.uuid}`;
}
