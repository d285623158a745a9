import type { Logger } from '../logger.js';
import { portIsFree, postmaster } from './postmaster.js';

const CHECK_EVERY_MS = 500;

export interface ClusterKeeper {
  /** Resolves with the port when the cluster came back ready on another port than this process connects to. */
  moved: Promise<number>;
  /** Stops watching; waits for a start in progress, so that whoever stops the cluster next stops that one too. */
  stop(): Promise<void>;
}

/**
 * Keeps the embedded cluster of `clusterDir` running on `port` for a process that uses it, whoever
 * started it: when its postmaster is gone (stopped by the process that started it, crashed, killed),
 * `restart` starts it again on the same data directory and port, so this process's connection
 * settings stay right and its pool reconnects by itself. Of several processes restarting at once,
 * PostgreSQL's own lock (postmaster.pid) lets one win; the others find it ready.
 */
export function keepCluster(clusterDir: string, port: number, restart: () => Promise<boolean>, logger: Logger): ClusterKeeper {
  let stopped = false;
  let down = false;
  let checking: Promise<void> | undefined;
  let reportMove!: (port: number) => void;
  const moved = new Promise<number>((resolve) => (reportMove = resolve));

  const check = async () => {
    const state = await postmaster(clusterDir);
    if (stopped || state.readyPort === port) {
      if (down && !stopped) logger.info({ port }, 'the embedded PostgreSQL answers again');
      down = false;
      return;
    }
    if (state.readyPort !== undefined) {
      stopped = true;
      clearInterval(timer);
      return reportMove(state.readyPort);
    }
    if (!down) logger.warn({ port }, 'the embedded PostgreSQL this server uses has stopped: answering 503 until it is back, and starting it again');
    down = true;
    // A postmaster still starting or stopping: look again. One on no one's data directory holds the port: wait for it.
    if (state.alive || !(await portIsFree(port)) || stopped) return;
    if (await restart()) logger.info({ port }, 'embedded PostgreSQL started again by this server');
  };
  const timer = setInterval(() => {
    checking ??= check()
      .catch((error: unknown) => logger.error({ err: error }, 'checking the embedded PostgreSQL failed'))
      .finally(() => (checking = undefined));
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    moved,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await checking;
    },
  };
}
