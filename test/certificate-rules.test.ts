import { displayName, effectiveStatus, isPastExpiry, verificationUrl } from '../src/certificates/certificate-rules.js';
import { CertificateStatus } from '../src/certificates/certificate.entity.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('isPastExpiry', () => {
  it('counts an issued certificate as expired from the expiry instant itself on', () => {
    expect(isPastExpiry({ status: CertificateStatus.issued, expiresAt: NOW }, NOW)).toBe(true);
    expect(isPastExpiry({ status: CertificateStatus.issued, expiresAt: later(-1) }, NOW)).toBe(true);
    expect(isPastExpiry({ status: CertificateStatus.issued, expiresAt: later(1) }, NOW)).toBe(false);
  });

  it('never expires a certificate without an expiry, nor one that is not issued', () => {
    expect(isPastExpiry({ status: CertificateStatus.issued, expiresAt: null }, NOW)).toBe(false);
    for (const status of [CertificateStatus.draft, CertificateStatus.revoked, CertificateStatus.expired]) {
      expect(isPastExpiry({ status, expiresAt: later(-1) }, NOW)).toBe(false);
    }
  });

  it('makes an issued certificate past its expiry read as expired and leaves the others as stored', () => {
    expect(effectiveStatus({ status: CertificateStatus.issued, expiresAt: new Date(Date.now() - 1000) })).toBe(CertificateStatus.expired);
    expect(effectiveStatus({ status: CertificateStatus.issued, expiresAt: new Date(Date.now() + 60_000) })).toBe(CertificateStatus.issued);
    expect(effectiveStatus({ status: CertificateStatus.revoked, expiresAt: new Date(Date.now() - 1000) })).toBe(CertificateStatus.revoked);
  });
});

describe('displayName', () => {
  it('prefers the social name, trimmed, and falls back to the name when it is missing or blank', () => {
    expect(displayName({ name: 'Maria Oliveira', socialName: '  Mari Oliveira ' })).toBe('Mari Oliveira');
    expect(displayName({ name: 'Maria Oliveira', socialName: '   ' })).toBe('Maria Oliveira');
    expect(displayName({ name: 'Maria Oliveira', socialName: null })).toBe('Maria Oliveira');
    expect(displayName({ name: 'Maria Oliveira' })).toBe('Maria Oliveira');
  });
});

describe('verificationUrl', () => {
  const uuid = '0190f5a2-7c4e-7b1a-9d3e-1a2b3c4d5e6f';

  it('keeps the link the certificate was given', () => {
    expect(verificationUrl({ uuid, publicVerificationUrl: 'https://verify.acme.edu/c/42' }, 'https://credentials.test')).toBe('https://verify.acme.edu/c/42');
  });

  it('defaults to this service’s public verification page of the certificate', () => {
    expect(verificationUrl({ uuid, publicVerificationUrl: null }, 'https://credentials.test')).toBe(`https://credentials.test/verify/${uuid}`);
    expect(verificationUrl({ uuid }, 'https://credentials.test')).toBe(`https://credentials.test/verify/${uuid}`);
  });
});
