import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { WorkerReply } from './worker-pool.js';

/**
 * The thread side of a WorkerPool: runs one job at a time and posts back its value or a description
 * of its error (name, message and a `reason` when the error carries one), with the heap it holds
 * afterwards; it says it is ready first.
 */
export function answerJobs<Job, Result>(run: (job: Job) => Promise<Result>): void {
  const port = parentPort!;
  port.on('message', async ({ id, job }: { id: number; job: Job }) => {
    const outcome = await Promise.resolve(job)
      .then(run)
      .then(
        (value) => ({ ok: true as const, value }),
        (caught: unknown) => ({ ok: false as const, error: described(caught) }),
      );
    const reply: WorkerReply<Result> = { id, ...outcome, heapUsedBytes: getHeapStatistics().used_heap_size };
    port.postMessage(reply);
  });
  port.postMessage('ready');
}

function described(caught: unknown): { name: string; message: string; reason?: string } {
  const error = caught instanceof Error ? caught : new Error(String(caught));
  const reason = (error as { reason?: unknown }).reason;
  return { name: error.name, message: error.message, reason: typeof reason === 'string' ? reason : undefined };
}
