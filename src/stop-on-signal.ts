import type { Logger } from './logger.js';

export interface StopMessages {
  stopping: string;
  stopped: string;
  failed: string;
}

/**
 * Runs `stop` once on the first SIGTERM or SIGINT (a second signal waits for the same stop) and
 * logs each step; a failed stop sets a non-zero exit code instead of throwing. Returns the same
 * shutdown for other reasons to stop.
 */
export function stopOnSignal(logger: Logger, stop: () => Promise<void>, messages: StopMessages): (reason: string) => void {
  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    stopping ??= (async () => {
      logger.info({ signal }, messages.stopping);
      await stop();
      logger.info(messages.stopped);
    })().catch((error) => {
      logger.error({ err: error }, messages.failed);
      process.exitCode = 1;
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return shutdown;
}
