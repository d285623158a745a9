import type { Logger } from '../logger.js';
import { portIsFree, postmaster } from './postmaster.js';

const CHECK_EVERY_MS = 500;
/** Failed starts wait 0.5 s, 1 s, 2 s, … up to this long before the next one. */
const MAX_BACKOFF_MS = 10_000;

export interface ClusterKeeper {
  /** Resolves with the port when the cluster came back ready on another port than this process connects to. */
  moved: Promise<number>;
  /** Resolves with the number of failed starts when the keeper gave up (the process should exit for its supervisor). */
  gaveUp: Promise<number>;
  /** Stops watching; waits for a start in progress, so that whoever stops the cluster next stops that one too. */
  stop(): Promise<void>;
}

/**
 * Keeps the embedded cluster of `clusterDir` running on `port` for a process that uses it, whoever
 * started it: when its postmaster is gone (stopped by the process that started it, crashed, killed),
 * `restart` starts it again on the same data directory and port, so this process's connection
 * settings stay right and its pool reconnects by itself. Of several processes restarting at once,
 * PostgreSQL's own lock (postmaster.pid) lets one win; the others find it ready. A start that fails
 * (the port held by another program, the directory unusable) is tried again with a growing pause;
 * after `attempts` failures in a row the keeper gives up (`gaveUp`).
 */
export function keepCluster(clusterDir: string, port: number, restart: () => Promise<boolean>, logger: Logger, attempts = 8): ClusterKeeper {
  let stopped = false;
  let down = false;
  let failures = 0;
  let nextTryAt = 0;
  let checking: Promise<void> | undefined;
  let reportMove!: (port: number) => void;
  const moved = new Promise<number>((resolve) => (reportMove = resolve));
  let reportGaveUp!: (failures: number) => void;
  const gaveUp = new Promise<number>((resolve) => (reportGaveUp = resolve));

  const failed = (reason: string) => {
    failures++;
    if (failures >= attempts) {
      stopped = true;
      clearInterval(timer);
      logger.error({ port, attempts }, `the embedded PostgreSQL could not be started again (${reason}) ${attempts} times in a row: giving up`);
      return reportGaveUp(failures);
    }
    const pauseMs = Math.min(CHECK_EVERY_MS * 2 ** (failures - 1), MAX_BACKOFF_MS);
    nextTryAt = Date.now() + pauseMs;
    logger.warn({ port, attempt: failures, attempts, retryInMs: pauseMs }, `starting the embedded PostgreSQL again failed: ${reason}`);
  };

  const check = async () => {
    const state = await postmaster(clusterDir);
    if (stopped || state.readyPort === port) {
      if (down && !stopped) logger.info({ port }, 'the embedded PostgreSQL answers again');
      down = false;
      failures = 0;
      return;
    }
    if (state.readyPort !== undefined) {
      stopped = true;
      clearInterval(timer);
      return reportMove(state.readyPort);
    }
    if (!down) logger.warn({ port }, 'the embedded PostgreSQL this server uses has stopped: answering 503 until it is back, and starting it again');
    down = true;
    // A postmaster still starting or stopping: look again.
    if (state.alive || stopped || Date.now() < nextTryAt) return;
    if (!(await portIsFree(port))) return failed(`port ${port} is held by another program`);
    if (stopped) return;
    if (!(await restart())) return failed('PostgreSQL did not start (see its log at debug level)');
    failures = 0;
    logger.info({ port }, 'embedded PostgreSQL started again by this server');
  };
  const timer = setInterval(() => {
    checking ??= check()
      .catch((error: unknown) => logger.error({ err: error }, 'checking the embedded PostgreSQL failed'))
      .finally(() => (checking = undefined));
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    moved,
    gaveUp,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await checking;
    },
  };
}
