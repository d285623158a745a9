import type { VerificationFacts } from '../verification/verification-facts.js';

/**
 * LinkedIn's public "add certification to profile" address, prefilled from the certificate. The
 * month fields are 1–12 in UTC, the calendar the page shows.
 */
export function linkedInAddToProfileUrl(facts: VerificationFacts): string {
  const params = new URLSearchParams({
    startTask: 'CERTIFICATION_NAME',
    name: facts.courseName,
    organizationName: facts.institutionName,
    issueYear: String(facts.issuedAt.getUTCFullYear()),
    issueMonth: String(facts.issuedAt.getUTCMonth() + 1),
  });
  if (facts.expiresAt) {
    params.set('expirationYear', String(facts.expiresAt.getUTCFullYear()));
    params.set('expirationMonth', String(facts.expiresAt.getUTCMonth() + 1));
  }
  params.set('certUrl', facts.verificationUrl);
  params.set('certId', facts.uuid);
  return `https://www.linkedin.com/profile/add?${params}`;
}
