import { purgeExpiredTokens } from '../auth/token.repository.js';
import { certificates } from '../certificates/certificate.service.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { purgeDeletedFiles } from '../files/file-purge.js';
import type { FileRuntime } from '../files/file-runtime.js';
import { IdempotencyStore } from '../idempotency/idempotency.repository.js';
import { purgeWalletLeftovers } from '../wallets/wallet.repository.js';
import { wakeStrandedDeliveries } from '../webhooks/webhook.repository.js';
import { releaseExpiredLeases } from './queue.repository.js';
import type { PeriodicWork } from './job-queue.js';

/**
 * Every periodic task of the service, in one list: to add one, add an entry (a task name, its interval
 * from the configuration, 0 turning it off, and the work, returning how many rows it handled). The job
 * queue runs each once per interval across every process (job-queue.ts).
 */
export function periodicTasks(config: Config, orm: Orm, files: FileRuntime): PeriodicWork[] {
  return [
    { name: 'certificates.expire', everyMs: config.expirySweepMs, work: () => certificates.expireOverdue({ em: orm.em.fork() }) },
    { name: 'files.purge', everyMs: config.filePurgeSweepMs, work: () => purgeDeletedFiles(orm, files, config.filePurgeGraceMs) },
    { name: 'tokens.purge', everyMs: config.tokenPurgeMs, work: () => purgeExpiredTokens(orm, config.tokenPurgeGraceSeconds) },
    { name: 'wallets.purge', everyMs: config.walletPurgeMs, work: () => purgeWalletLeftovers(orm, config.walletPurgeGraceSeconds) },
    { name: 'idempotency.sweep', everyMs: config.idempotencySweepMs, work: () => new IdempotencyStore(orm).sweep() },
    // Only processes that take leased work (e-mails, webhooks, batches) look for leases their dead peers left,
    // and for parked webhook deliveries whose wake was missed.
    {
      name: 'leases.expired',
      everyMs: config.notificationWorker || config.jobWorker ? Math.max(config.notificationPollMs, 1000) : 0,
      work: async () => (await releaseExpiredLeases(orm)) + (await wakeStrandedDeliveries(orm, config.webhooks.tenantConcurrency)),
    },
  ];
}
