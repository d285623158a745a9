import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { provision, provisionDemoTenant } from './auth/provisioning.js';
import type { Config } from './config.js';
import { resolveDatabase } from './db/database.js';
import { openServiceOrm, type Orm } from './db/orm.js';
import { monitorReplica, type ReplicaMonitor } from './db/replica-monitor.js';
import { DocumentWorkers } from './documents/document-workers.js';
import { BadgeWorkers } from './badges/badge-workers.js';
import type { Logger } from './logger.js';
import { createFileRuntime } from './files/file-runtime.js';
import type { ServiceRuntime } from './context/request-context.js';
import { type QueueKind, type RunningJobQueue, startJobQueue } from './queue/job-queue.js';
import { periodicTasks } from './queue/periodic-tasks.js';
import { emailWork } from './notifications/email.task.js';
import { prepareSigningKeys } from './certificates/signing-keys.js';
import { resolveKeyWrapper } from './security/key-encryption-key.js';
import { webhookWork } from './webhooks/webhook.task.js';
import { sealLegacyWebhookSecrets } from './webhooks/webhook-secrets.js';
import { jobWork } from './jobs/job.task.js';
import { certificateBatchRunner } from './certificates/certificate-batch-job.js';
import { CERTIFICATE_BATCH } from './certificates/certificate-batch.js';
import { createRequestContext } from './context/request-context.js';
import { createHttpServer } from './request-timeouts.js';
import { keepMemoryLowWhenIdle } from './health/idle-memory.js';
import type { OrmOptions } from '../mikro-orm.config.js';
import type { Principal } from './auth/token.service.js';
import { PrincipalCache } from './auth/principal-cache.js';
import { listenForRevocations } from './auth/principal-revocations.js';
import type { NotificationListener } from './db/notification-listener.js';
import { PreviewCache } from './templates/preview-cache.js';

export interface RunningService {
  url: string;
  orm: Orm;
  /** The long-lived parts requests share (file runtime, signing keys, document workers). */
  runtime: ServiceRuntime;
  /** The schema owner's connection URL (migrations, benchmarks' own tables); the ORM connects as the app role. */
  ownerDatabaseUrl: string;
  /** Stops accepting, lets requests in flight finish (up to the grace period), then releases everything. */
  stop(): Promise<void>;
  /** Resolves with its new port when the embedded PostgreSQL came back on another port than this process connects to. */
  databaseMoved?: Promise<number>;
  /** Resolves when the embedded PostgreSQL could not be started again (see cluster-keeper.ts). */
  databaseGaveUp?: Promise<number>;
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function drain(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle once their response is sent: close them as they do.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  server.closeIdleConnections();
  await closed;
  clearInterval(idleSweep);
  clearTimeout(deadline);
}

/**
 * Boot in order: database → migrations → provisioning → job queue (e-mails, webhooks, batches, periodic
 * tasks) → app → listen; the document and badge workers start with their first job. Shutdown: drain HTTP
 * first (so refusing new requests is not delayed), then the document and badge workers, the job queue, ORM, database.
 */
export async function startService(config: Config, logger: Logger, ormOptions: OrmOptions = {}): Promise<RunningService> {
  const database = await resolveDatabase(config, logger, { keep: true });
  const stopIdleMemory = keepMemoryLowWhenIdle((before, after) => logger.info({ rssBefore: before, rssAfter: after }, 'memory given back after a load'));
  let orm: Orm | undefined;
  let stopAnchoring: (() => Promise<void>) | undefined;
  let revocations: NotificationListener | undefined;
  let replica: ReplicaMonitor | undefined;
  const documents = new DocumentWorkers(config.pdfWorkers);
  const badgeWorkers = new BadgeWorkers(config.badgeWorkers);
  let queue: RunningJobQueue | undefined;
  let email: ReturnType<typeof emailWork> | undefined;
  try {
    const opened = await openServiceOrm(database, logger, {
      poolMax: config.dbPoolMax,
      timeouts: config.timeouts,
      replicaUrl: config.replica?.url,
      pooler: config.pooler?.mode,
      ...ormOptions,
    });
    orm = opened.orm;
    replica = config.replica ? monitorReplica(orm, config.replica, logger) : undefined;
    if (opened.applied.length > 0) logger.info({ migrations: opened.applied }, 'migrations applied');
    const signingKeys = await prepareSigningKeys(orm, await resolveKeyWrapper(config, logger), logger);
    const sealedSecrets = await sealLegacyWebhookSecrets(orm, signingKeys.wrapper);
    if (sealedSecrets > 0) logger.info({ count: sealedSecrets }, 'webhook signing secrets stored before encryption at rest are now sealed');
    await provision(orm, config, logger);
    // Anchoring runs on its own schedule from here on; issuance never waits on it (docs/anchoring.md).
    // Loaded only when configured: the chain libraries cost half a second of every start.
    const anchoring = config.anchoring
      ? await (
          await import('./anchoring/anchor-scheduler.js')
        ).startAnchoring(orm, database.directUrl, config.anchoring, signingKeys.wrapper, config.publicBaseUrl, logger)
      : undefined;
    stopAnchoring = anchoring?.stop;
    const runtime: ServiceRuntime = {
      documents,
      badgeWorkers,
      files: createFileRuntime(config),
      signingKeys,
      previews: new PreviewCache(),
      webhooks: config.webhooks,
      anchoring,
    };
    // The queue starts before the server listens: once ready, a process can be stopped at any moment.
    const queueOrm = orm;
    email = config.notificationWorker ? emailWork(config, queueOrm, logger) : undefined;
    const jobContext = (principal: Principal) => createRequestContext(queueOrm.em, principal, `job-${randomUUID()}`, logger, config.publicBaseUrl, runtime);
    const kinds: QueueKind[] = [
      ...(email ? [email, webhookWork(config, queueOrm, logger, signingKeys.wrapper)] : []),
      ...(config.jobWorker ? [jobWork(queueOrm, { [CERTIFICATE_BATCH]: certificateBatchRunner(jobContext) }, logger)] : []),
    ];
    queue = await startJobQueue({
      databaseUrl: database.directUrl,
      kinds,
      periodic: periodicTasks(config, queueOrm, runtime.files),
      pollMs: config.notificationPollMs,
      logger,
    });
    const principals = new PrincipalCache();
    revocations = listenForRevocations(database.directUrl, principals, logger);
    const { app, apollo } = await createApp({ config, orm, logger, runtime, principals });
    const server = createHttpServer(app, config.timeouts);
    await listen(server, config.port, config.host);
    await provisionDemoTenant(orm, config, logger).catch(async (error: unknown) => {
      await drain(server, 0);
      throw error;
    });
    const { port } = server.address() as AddressInfo;
    const readyOrm = orm;
    return {
      url: `http://127.0.0.1:${port}`,
      orm: readyOrm,
      runtime,
      ownerDatabaseUrl: database.migrationUrl,
      databaseMoved: database.moved,
      databaseGaveUp: database.gaveUp,
      async stop() {
        await drain(server, config.shutdownGraceMs);
        await apollo.stop();
        await revocations?.close();
        await documents.close();
        await badgeWorkers.close();
        await queue!.stop();
        email?.close();
        await stopAnchoring?.();
        await replica?.stop();
        await readyOrm.close();
        await database.release();
        stopIdleMemory();
      },
    };
  } catch (error) {
    await stopAnchoring?.().catch(() => undefined);
    await revocations?.close();
    await queue?.stop().catch(() => undefined);
    email?.close();
    await documents.close();
    await badgeWorkers.close();
    await replica?.stop();
    await orm?.close().catch(() => undefined);
    await database.release().catch(() => undefined);
    stopIdleMemory();
    throw error;
  }
}
