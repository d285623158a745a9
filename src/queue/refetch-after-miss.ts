import { EventEmitter } from 'node:events';
import type { Worker, WorkerEvents } from 'graphile-worker';

/** When the fetches repeated after a missed one run, after the one before (at most this many). */
const RETRY_DELAYS_MS = [10, 40, 160];
/** An empty fetch that started this soon after its runner's latest notification may have missed the job announced. */
const MISS_WINDOW_MS = 500;

/**
 * Fetches again, a few times shortly after, when a fetch woken by a notification came back empty. A
 * runner of jobs in named queues needs it: graphile-worker fetches such a job by locking every free
 * queue's row with SKIP LOCKED, so a fetch that overlaps any other fetch (another runner's woken by the
 * same notification, whose tasks differ, or a poll) skips those queues and finds nothing. The job
 * announced then waited for the next poll: a quiet service's webhooks arrived up to NOTIFICATION_POLL_MS
 * late, one in two or three (docs/benchmarks.md, session 19). Jobs outside named queues cannot be
 * missed that way.
 */
export function refetchAfterMiss(): WorkerEvents {
  const events = new EventEmitter() as WorkerEvents;
  let notifiedAt = Number.NEGATIVE_INFINITY;
  let retries = 0;
  let pending: NodeJS.Timeout | undefined;
  const fetchStarted = new WeakMap<Worker, number>();
  events.on('pool:listen:notification', () => {
    notifiedAt = performance.now();
    retries = 0;
  });
  events.on('worker:getJob:start', ({ worker }) => fetchStarted.set(worker, performance.now()));
  events.on('worker:getJob:empty', ({ worker }) => {
    // A fetch that started before the notification is repeated by graphile-worker itself (its nudge found the worker busy).
    const sinceNotified = (fetchStarted.get(worker) ?? Number.NEGATIVE_INFINITY) - notifiedAt;
    if (pending || retries >= RETRY_DELAYS_MS.length || sinceNotified < 0 || sinceNotified > MISS_WINDOW_MS) return;
    pending = setTimeout(() => {
      pending = undefined;
      try {
        worker.workerPool.nudge(1);
      } catch {
        // The runner stopped meanwhile (graphile-worker asserts that a released worker is not nudged).
      }
    }, RETRY_DELAYS_MS[retries++]);
    pending.unref();
  });
  return events;
}
