import { loadConfigOrExit } from './config.js';

// The configuration is checked before the service's modules load, so a bad one is reported at once.
const config = loadConfigOrExit();
const { createLogger, wantsPrettyLogs } = await import('./logger.js');
const { startService } = await import('./service.js');
const { stopOnSignal } = await import('./stop-on-signal.js');
const { startupProblem } = await import('./startup-problems.js');
const logger = createLogger(config.logLevel, undefined, { pretty: wantsPrettyLogs(config.env) });

try {
  const service = await startService(config, logger);
  const local = `http://localhost:${new URL(service.url).port}`;
  logger.info({ url: local, graphql: `${local}/graphql`, rest: `${local}/api/v1`, env: config.env }, 'credential service listening');
  stopOnSignal(
    logger,
    () => service.stop(),
    { stopping: 'shutting down: finishing requests in flight', stopped: 'stopped cleanly', failed: 'shutdown failed' },
    { moved: service.databaseMoved, gaveUp: service.databaseGaveUp },
  );
} catch (error) {
  // A problem of the surroundings is one line on stderr, like a bad configuration; anything else is a bug, logged with its stack.
  const problem = startupProblem(error, config);
  if (problem) process.stderr.write(`Cannot start: ${problem}\n`);
  else logger.fatal({ err: error }, 'startup failed');
  process.exitCode = 1;
}
