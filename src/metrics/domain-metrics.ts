import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * What the business core counts, one set a process (Prometheus scrapes processes): issuances,
 * revocations, signing time, and the Node process itself. Every service of the process shares them.
 */
export const domainRegistry = new Registry();

collectDefaultMetrics({ register: domainRegistry });

export const certificatesIssued = new Counter({
  name: 'credentials_certificates_issued_total',
  help: 'Certificates issued (their issuing transaction committed).',
  registers: [domainRegistry],
});

export const certificatesRevoked = new Counter({
  name: 'credentials_certificates_revoked_total',
  help: 'Certificates revoked (their transaction committed).',
  registers: [domainRegistry],
});

export const signingSeconds = new Histogram({
  name: 'credentials_signing_duration_seconds',
  help: 'Time to stamp and sign the certificate and transcript PDFs of one issuance on a document worker.',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
  registers: [domainRegistry],
});

export const engagementEvents = new Counter({
  name: 'credentials_engagement_events_total',
  help: 'Public engagement counted (docs/public-pages.md): page views, PDF downloads, badge and credential fetches, share and LinkedIn clicks (bots excluded), credentials wallets received.',
  labelNames: ['event'] as const,
  registers: [domainRegistry],
});
