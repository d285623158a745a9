import { loadConfigOrExit } from './config.js';

// The configuration is checked before the service's modules load, so a bad one is reported at once.
const config = loadConfigOrExit();
const { createLogger, wantsPrettyLogs } = await import('./logger.js');
const { startService } = await import('./service.js');
const { stopOnSignal } = await import('./stop-on-signal.js');
const logger = createLogger(config.logLevel, undefined, { pretty: wantsPrettyLogs(config.env) });

try {
  const service = await startService(config, logger);
  const local = `http://localhost:${new URL(service.url).port}`;
  logger.info({ url: local, graphql: `${local}/graphql`, rest: `${local}/api/v1`, env: config.env }, 'credential service listening');
  const shutdown = stopOnSignal(logger, () => service.stop(), {
    stopping: 'shutting down: finishing requests in flight',
    stopped: 'stopped cleanly',
    failed: 'shutdown failed',
  });
  // The embedded PostgreSQL is started again on its port whenever it stops (src/db/cluster-keeper.ts);
  // only when another process started it on another port can this one not follow, and a restart finds it.
  void service.databaseMoved?.then((port) => {
    logger.warn({ port }, 'the embedded PostgreSQL came back on another port: shutting down so that a restart connects to it');
    process.exitCode = 75; // EX_TEMPFAIL: a supervisor that restarts on failure starts it again
    shutdown('embedded PostgreSQL moved');
  });
} catch (error) {
  logger.fatal({ err: error }, 'startup failed');
  process.exitCode = 1;
}
