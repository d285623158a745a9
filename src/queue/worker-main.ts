/**
 * The job queue's delivery work (e-mails and webhooks) on its own, for deployments whose API processes
 * run with NOTIFICATION_WORKER=off: `npm run worker` (`node dist/src/queue/worker-main.js`). Same configuration and
 * database as the server; it leaves migrations to the server and refuses to start before they ran.
 */
import { loadConfigOrExit } from '../config.js';
import { resolveDatabase } from '../db/database.js';
import { openOrm, pendingMigrationCount } from '../db/orm.js';
import { createLogger, wantsPrettyLogs } from '../logger.js';
import { stopOnSignal } from '../stop-on-signal.js';
import { emailWork } from '../notifications/email.task.js';
import { startJobQueue } from './job-queue.js';
import { webhookWork } from '../webhooks/webhook.task.js';
import { resolveKeyWrapper } from '../security/key-encryption-key.js';
import { sealLegacyWebhookSecrets } from '../webhooks/webhook-secrets.js';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, undefined, { pretty: wantsPrettyLogs(config.env) });
const database = await resolveDatabase(config, logger, { keep: true });
const orm = await openOrm(database.url, { poolMax: 4, pooler: config.pooler?.mode });

if ((await pendingMigrationCount(orm)) > 0) {
  logger.fatal('migrations are pending: start the server once to apply them, then the worker');
  await orm.close();
  await database.release();
  process.exitCode = 1;
} else {
  const wrapper = await resolveKeyWrapper(config, logger);
  await sealLegacyWebhookSecrets(orm, wrapper);
  const email = emailWork(config, orm, logger);
  const kinds = [email, webhookWork(config, orm, logger, wrapper)];
  const queue = await startJobQueue({ databaseUrl: database.directUrl, kinds, periodic: [], pollMs: config.notificationPollMs, logger });
  logger.info({ smtp: Boolean(config.smtpUrl), pollMs: config.notificationPollMs }, 'queue worker running (e-mails, webhooks)');
  const stop = async () => {
    await queue.stop();
    email.close();
    await orm.close();
    await database.release();
  };
  stopOnSignal(
    logger,
    stop,
    {
      stopping: 'queue worker stopping: finishing the deliveries in progress',
      stopped: 'queue worker stopped cleanly',
      failed: 'queue worker shutdown failed',
    },
    database,
  );
}
