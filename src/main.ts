import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';
import { stopOnSignal } from './stop-on-signal.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);

try {
  const service = await startService(config, logger);
  const local = `http://localhost:${new URL(service.url).port}`;
  logger.info({ url: local, graphql: `${local}/graphql`, rest: `${local}/api/v1`, env: config.env }, 'credential service listening');
  stopOnSignal(logger, () => service.stop(), {
    stopping: 'shutting down: finishing requests in flight',
    stopped: 'stopped cleanly',
    failed: 'shutdown failed',
  });
} catch (error) {
  logger.fatal({ err: error }, 'startup failed');
  process.exitCode = 1;
}
