import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { WorkerReady, WorkerReply, WorkerStart } from './worker-pool.js';

/** This thread's kernel id on Linux (`/proc/thread-self` → "PID/task/TID"); null elsewhere. */
function kernelThreadId(): number | null {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/**
 * Lowers this thread's CPU priority (Linux: a thread id names one thread to setpriority). A niced
 * thread only gets CPU time the event loop and the tenants' workers leave over. Best effort: where
 * it cannot be done the thread runs at normal priority.
 */
function niceThread(threadId: number | null, nice: number): void {
  if (threadId === null || nice <= 0) return;
  try {
    setPriority(threadId, nice);
  } catch {
    // Not permitted or not supported: normal priority.
  }
}

// At import, before the thread's entry warms anything up: all of the thread's work runs at its priority.
const threadId = isMainThread ? null : kernelThreadId();
niceThread(threadId, (workerData as WorkerStart | undefined)?.nice ?? 0);

/**
 * The thread side of a WorkerPool: runs one job at a time and posts back its value or a description
 * of its error (name, message and a `reason` when the error carries one), with the heap it holds
 * afterwards; it says it is ready first, with its kernel thread id, once it runs at the priority it was
 * started with.
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
  const ready: WorkerReady = { ready: true, threadId };
  port.postMessage(ready);
}

function described(caught: unknown): { name: string; message: string; reason?: string } {
  const error = caught instanceof Error ? caught : new Error(String(caught));
  const reason = (error as { reason?: unknown }).reason;
  return { name: error.name, message: error.message, reason: typeof reason === 'string' ? reason : undefined };
}
