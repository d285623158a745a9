import { parentPort } from 'node:worker_threads';
import type { WorkerReply } from './worker-pool.js';

/**
 * The thread side of a WorkerPool: runs one job at a time and posts back its value or a description
 * of its error (name, message and a `reason` when the error carries one), then says it is ready.
 */
export function answerJobs<Job, Result>(run: (job: Job) => Promise<Result>): void {
  const port = parentPort!;
  port.on('message', async ({ id, job }: { id: number; job: Job }) => {
    let reply: WorkerReply<Result>;
    try {
      reply = { id, ok: true, value: await run(job) };
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      const reason = (error as { reason?: unknown }).reason;
      reply = { id, ok: false, error: { name: error.name, message: error.message, reason: typeof reason === 'string' ? reason : undefined } };
    }
    port.postMessage(reply);
  });
  port.postMessage('ready');
}
