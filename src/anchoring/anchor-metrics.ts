import { Counter, Gauge } from 'prom-client';
import { domainRegistry } from '../metrics/domain-metrics.js';

export const anchorTransactions = new Counter({
  name: 'credentials_anchor_transactions_total',
  help: 'Anchoring transactions signed (a batch re-signed after its nonce was taken counts again).',
  registers: [domainRegistry],
});

export const certificatesAnchored = new Counter({
  name: 'credentials_certificates_anchored_total',
  help: 'Certificates whose anchoring transaction was confirmed and recorded.',
  registers: [domainRegistry],
});

export const anchorFailures = new Counter({
  name: 'credentials_anchor_failures_total',
  help: 'Anchoring runs that failed, by reason (rpc_unreachable, insufficient_funds, rejected, other); the batch waits and is retried with backoff.',
  labelNames: ['reason'] as const,
  registers: [domainRegistry],
});

export const anchorBackoffSeconds = new Gauge({
  name: 'credentials_anchor_backoff_seconds',
  help: 'How long anchoring waits before its next attempt after consecutive failures (0: on schedule).',
  registers: [domainRegistry],
});
