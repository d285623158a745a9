import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);

try {
  const service = await startService(config, logger);
  const local = `http://localhost:${new URL(service.url).port}`;
  logger.info({ url: local, graphql: `${local}/graphql`, rest: `${local}/api/v1`, env: config.env }, 'credential service listening');

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    stopping ??= (async () => {
      logger.info({ signal }, 'shutting down: finishing requests in flight');
      try {
        await service.stop();
        logger.info('stopped cleanly');
      } catch (error) {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      }
    })();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
} catch (error) {
  logger.fatal({ err: error }, 'startup failed');
  process.exitCode = 1;
}
