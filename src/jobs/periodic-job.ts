import type { Logger } from '../logger.js';

export interface PeriodicJob {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `work` now and every `intervalMs`, one run at a time (a slow run delays the next, never
 * overlaps it). `work` returns how many rows it handled; a non-zero count is logged as `done`.
 * The timer never keeps the process alive.
 */
export function startPeriodicJob(name: string, intervalMs: number, work: () => Promise<number>, logger: Logger): PeriodicJob {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = running
      .then(work)
      .then((count) => count > 0 && logger.info({ count }, name))
      .catch((error) => logger.error({ err: error }, `${name}: failed`));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
