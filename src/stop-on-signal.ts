import type { Logger } from './logger.js';

export interface StopMessages {
  stopping: string;
  stopped: string;
  failed: string;
}

/**
 * Runs `stop` once on the first SIGTERM or SIGINT (a second signal waits for the same stop) and
 * logs each step; a failed stop sets a non-zero exit code instead of throwing. Also stops, with exit
 * code 75, when the embedded database `moved`, and with code 1 when its keeper `gaveUp`. Returns the
 * same shutdown for other reasons to stop.
 */
export function stopOnSignal(
  logger: Logger,
  stop: () => Promise<void>,
  messages: StopMessages,
  database: { moved?: Promise<number>; gaveUp?: Promise<number> } = {},
): (reason: string) => void {
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
  // The embedded PostgreSQL is started again on its port whenever it stops (src/db/cluster-keeper.ts);
  // only when another process started it on another port can this one not follow, and a restart finds it.
  void database.moved?.then((port) => {
    logger.warn({ port }, 'the embedded PostgreSQL came back on another port: shutting down so that a restart connects to it');
    process.exitCode = 75; // EX_TEMPFAIL: a supervisor that restarts on failure starts it again
    shutdown('embedded PostgreSQL moved');
  });
  void database.gaveUp?.then(() => {
    logger.error('shutting down with exit code 1 so that a supervisor restarts the service (or an operator looks at the embedded PostgreSQL)');
    process.exitCode = 1;
    shutdown('embedded PostgreSQL lost');
  });
  return shutdown;
}
