import { Worker } from 'node:worker_threads';
import type { WorkerPoolLimits } from '../config.js';

/**
 * Where a worker thread's code is: `file` beside the module at `moduleUrl` once compiled. Under Jest
 * the modules run from src/*.ts, which a bare thread cannot load, so the compiled twin in dist/ is
 * used (`npm test` builds before it runs).
 */
export function threadEntry(moduleUrl: string, file: string): URL {
  if (moduleUrl.endsWith('.js')) return new URL(`./${file}`, moduleUrl);
  const src = moduleUrl.lastIndexOf('/src/');
  return new URL(`${moduleUrl.slice(0, src)}/dist${moduleUrl.slice(src, moduleUrl.lastIndexOf('/') + 1)}${file}`);
}

/** Why a job got no answer from a worker. */
export type WorkerFailureKind = 'timeout' | 'crashed' | 'busy' | 'closed';

export class WorkerJobError extends Error {
  constructor(
    readonly kind: WorkerFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerJobError';
  }

  /** A full pool is a busy service, answered 503 with Retry-After (src/errors/classify.ts). */
  get atCapacity(): boolean {
    return this.kind === 'busy';
  }
}

/** What a worker posts back for a job: its value, or an error it caught and described; and its heap in use after it. */
export type WorkerReply<Result> = { id: number; heapUsedBytes: number } & (
  { ok: true; value: Result } | { ok: false; error: { name: string; message: string; reason?: string } }
);

/** Share of the heap limit in use after a job past which the worker is replaced before its next job. */
const RETIRE_AT_HEAP_SHARE = 0.5;

interface Pending<Job, Result> {
  job: Job;
  timeoutMs: number;
  resolve(reply: WorkerReply<Result>): void;
  reject(error: WorkerJobError): void;
}

interface Slot<Job, Result> {
  worker: Worker;
  ready: boolean;
  jobs: number;
  current?: Pending<Job, Result> & { id: number; timer: NodeJS.Timeout };
}

/**
 * A few worker threads for work on untrusted input. Each job has a wall-clock limit (the worker is
 * terminated past it), each worker a heap limit. A worker is replaced after a failed job, once its
 * heap in use after a job passes half its limit (pdf-lib's name and reference tables only grow, and
 * a hostile file can fill them), or after `maxJobsPerWorker` jobs: whatever an input leaves behind
 * dies with its thread, while a healthy worker keeps its warm code (a replacement reloads every
 * module and runs cold for its first jobs). Jobs wait in a bounded queue; when it is full they are
 * refused at once instead of piling up in memory.
 */
export class WorkerPool<Job, Result> {
  private readonly slots = new Set<Slot<Job, Result>>();
  private readonly queue: Pending<Job, Result>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly entry: URL,
    private readonly limits: WorkerPoolLimits,
  ) {}

  /** Runs a job on a worker (at most `timeoutMs` of it); rejects with WorkerJobError when no worker answered it. */
  run(job: Job, timeoutMs = this.limits.jobTimeoutMs): Promise<WorkerReply<Result>> {
    if (this.closed) return Promise.reject(new WorkerJobError('closed', 'The document workers are shut down.'));
    const running = [...this.slots].filter((slot) => slot.current).length;
    if (running + this.queue.length >= this.limits.size + this.limits.queueLimit) {
      return Promise.reject(new WorkerJobError('busy', 'Too many documents are being processed; try again shortly.'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, timeoutMs, resolve, reject });
      this.pump();
    });
  }

  /** Refuses queued jobs and terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new WorkerJobError('closed', 'The document workers are shut down.'));
    await Promise.all([...this.slots].map((slot) => this.discard(slot, new WorkerJobError('closed', 'The document workers are shut down.'))));
  }

  /** Workers alive now (idle, busy or starting). */
  get size(): number {
    return this.slots.size;
  }

  /** Hands waiting jobs to idle workers, and starts workers for the jobs no worker will take soon. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.current) this.dispatch(slot, this.queue.shift()!);
    }
    let starting = [...this.slots].filter((slot) => !slot.ready).length;
    while (!this.closed && this.queue.length > starting && this.slots.size < this.limits.size) {
      this.spawn();
      starting++;
    }
  }

  private spawn(): void {
    const worker = new Worker(this.entry, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    const slot: Slot<Job, Result> = { worker, ready: false, jobs: 0 };
    this.slots.add(slot);
    worker.on('message', (message: WorkerReply<Result> | 'ready') => this.onMessage(slot, message));
    worker.on('error', () => void this.discard(slot, new WorkerJobError('crashed', 'The document could not be processed within the limits.')));
    worker.on('exit', () => void this.discard(slot, new WorkerJobError('crashed', 'The document worker stopped.')));
  }

  private onMessage(slot: Slot<Job, Result>, message: WorkerReply<Result> | 'ready'): void {
    if (message === 'ready') {
      slot.ready = true;
      this.pump();
      if (!slot.current) slot.worker.unref();
      return;
    }
    const current = slot.current;
    if (!current || current.id !== message.id) return;
    clearTimeout(current.timer);
    slot.current = undefined;
    slot.jobs++;
    // An idle worker does not keep the process alive; one with a job (or starting for one) does.
    slot.worker.unref();
    current.resolve(message);
    // Anything but a clean answer may have left the thread's state dirty: replace the worker.
    if (!message.ok || this.worn(slot, message.heapUsedBytes)) void this.discard(slot);
    else this.pump();
  }

  private worn(slot: Slot<Job, Result>, heapUsedBytes: number): boolean {
    return slot.jobs >= this.limits.maxJobsPerWorker || heapUsedBytes > this.limits.heapMb * RETIRE_AT_HEAP_SHARE * 1024 * 1024;
  }

  private dispatch(slot: Slot<Job, Result>, pending: Pending<Job, Result>): void {
    const id = this.nextId++;
    const timer = setTimeout(
      () => void this.discard(slot, new WorkerJobError('timeout', `The document took longer than ${pending.timeoutMs} ms to process.`)),
      pending.timeoutMs,
    );
    slot.current = { ...pending, id, timer };
    slot.worker.ref();
    try {
      slot.worker.postMessage({ id, job: pending.job });
    } catch {
      void this.discard(slot, new WorkerJobError('crashed', 'The document job could not be handed to a worker.'));
    }
  }

  /** Ends a worker, failing its job if it had one, and starts a replacement when jobs are waiting. */
  private async discard(slot: Slot<Job, Result>, failure?: WorkerJobError): Promise<void> {
    if (!this.slots.delete(slot)) return;
    const current = slot.current;
    slot.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.reject(failure ?? new WorkerJobError('crashed', 'The document worker stopped.'));
    }
    // A worker that dies while starting would die again: fail the waiting jobs instead of respawning forever.
    if (!slot.ready) for (const pending of this.queue.splice(0)) pending.reject(new WorkerJobError('crashed', 'The document worker could not start.'));
    this.pump();
    await slot.worker.terminate().catch(() => undefined);
  }
}
