import { CertificateStatus } from '../src/certificates/certificate.entity.js';
import { badgeStanding, issuerStanding, publicStanding } from '../src/certificates/public-standing.js';

// The one lifecycle rule of public documents, on its boundaries (pure; the HTTP table is test/public-lifecycle.test.ts).

const now = new Date('2030-01-01T00:00:00Z');
const earlier = new Date('2029-12-31T23:59:59Z');
const live = { deletedAt: null };
const deleted = { deletedAt: earlier };
const issued = { status: CertificateStatus.issued, expiresAt: null, deletedAt: null };
const badges = { isBadgesEnabled: true, badgeImageUuid: '0190f5c4-0000-7000-8000-000000000001', deletedAt: null };

describe('publicStanding', () => {
  it.each([
    ['no certificate', null, live, 'absent'],
    ['a draft, even of a deleted institution', { ...issued, status: CertificateStatus.draft }, deleted, 'absent'],
    ['an issued certificate', issued, live, 'valid'],
    ['a certificate at its expiry instant', { ...issued, expiresAt: now }, live, 'expired'],
    ['a certificate a moment before its expiry', { ...issued, expiresAt: new Date(now.getTime() + 1) }, live, 'valid'],
    ['a certificate the sweeper marked expired', { ...issued, status: CertificateStatus.expired }, live, 'expired'],
    ['a revoked certificate past its expiry', { ...issued, status: CertificateStatus.revoked, expiresAt: earlier }, live, 'revoked'],
    ['a deleted certificate', { ...issued, deletedAt: earlier }, live, 'withdrawn'],
    ['a deleted revoked certificate', { ...issued, status: CertificateStatus.revoked, deletedAt: earlier }, live, 'withdrawn'],
    ['a certificate of a deleted institution', issued, deleted, 'withdrawn'],
    ['a certificate whose institution is missing', issued, null, 'withdrawn'],
  ])('%s is %s', (_, certificate, institution, expected) => {
    expect(publicStanding(certificate, institution, now)).toBe(expected);
  });
});

describe('badgeStanding and issuerStanding', () => {
  it('hide every badge document while badges are off or there is no image, whatever the certificate', () => {
    for (const institution of [
      null,
      { ...badges, isBadgesEnabled: false },
      { ...badges, badgeImageUuid: null },
      { ...badges, isBadgesEnabled: false, ...deleted },
    ]) {
      expect(badgeStanding({ ...issued, status: CertificateStatus.revoked }, institution, now)).toBe('absent');
      expect(issuerStanding(institution)).toBe('absent');
    }
  });

  it('follow the certificate and the institution while badges are on', () => {
    expect(badgeStanding({ ...issued, status: CertificateStatus.revoked }, badges, now)).toBe('revoked');
    expect(badgeStanding(issued, { ...badges, ...deleted }, now)).toBe('withdrawn');
    expect(issuerStanding(badges)).toBe('valid');
    expect(issuerStanding({ ...badges, ...deleted })).toBe('withdrawn');
  });
});
