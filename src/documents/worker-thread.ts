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
    let reply: WorkerReply<Result>;
    try {
      reply = { id, ok: true, value: await run(job), heapUsedBytes: 0 };
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      const reason = (error as { reason?: unknown }).reason;
      const described = { name: error.name, message: error.message, reason: typeof reason === 'string' ? reason : undefined };
      reply = { id, ok: false, error: described, heapUsedBytes: 0 };
    }
    reply.heapUsedBytes = getHeapStatistics().used_heap_size;
    port.postMessage(reply);
  });
  port.postMessage('ready');
}
