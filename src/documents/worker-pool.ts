import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { WorkerPoolLimits } from '../config.js';
import { FairQueue } from './fair-queue.js';

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
    /** How long a worker spent on the job before it failed (0 when none took it). */
    readonly elapsedMs = 0,
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

/** A reply with the time the worker spent on its job. */
export type TimedReply<Result> = WorkerReply<Result> & { elapsedMs: number };

/** What a worker posts once it can take jobs: its kernel thread id where the platform has one (Linux). */
export interface WorkerReady {
  ready: true;
  threadId: number | null;
}

/** What the thread is told at start: how nice (0 normal … 19 lowest CPU priority) its thread should be. */
export interface WorkerStart {
  nice: number;
}

/**
 * Whom a job is done for. Jobs wait per `lane` (a tenant, a client address) and lanes take turns; the
 * wall-clock time a worker spent on the job is handed to `charge` (a cost budget) before the job's
 * caller sees its answer.
 */
export interface JobOwner {
  lane: string;
  charge?(elapsedMs: number): Promise<void>;
}

/** Work done for nobody in particular (the CLI, tests): one shared lane, nothing charged. */
export const UNOWNED: JobOwner = { lane: '-' };

/** Share of the heap limit in use after a job past which the worker is replaced before its next job. */
const RETIRE_AT_HEAP_SHARE = 0.5;

interface Pending<Job, Result> {
  job: Job;
  lane: string;
  timeoutMs: number;
  transfer: readonly ArrayBuffer[];
  resolve(reply: TimedReply<Result>): void;
  reject(error: WorkerJobError): void;
}

interface Slot<Job, Result> {
  worker: Worker;
  ready: boolean;
  threadId: number | null;
  jobs: number;
  current?: Pending<Job, Result> & { id: number; timer: NodeJS.Timeout; startedAt: number };
  /** Retires the worker when it has had nothing to do for `idleMs`. */
  idleTimer?: NodeJS.Timeout;
}

/**
 * A few worker threads for work on untrusted input. Each job has a wall-clock limit (the worker is
 * terminated past it), each worker a heap limit. A worker is replaced after a failed job, once its
 * heap in use after a job passes half its limit (pdf-lib's name and reference tables only grow, and
 * a hostile file can fill them), or after `maxJobsPerWorker` jobs: whatever an input leaves behind
 * dies with its thread, while a healthy worker keeps its warm code (a replacement reloads every
 * module and runs cold for its first jobs). A worker idle for `idleMs` is retired too, so the memory
 * of a burst goes back to the system. Jobs wait in a bounded queue, per owner's lane, lanes taking
 * turns (FairQueue); when the queue, or a lane's half of it, is full, a job is refused at once instead
 * of piling up in memory. Threads may run niced (`nice` 19: only CPU time nothing else wants).
 */
export class WorkerPool<Job, Result> {
  private readonly slots = new Set<Slot<Job, Result>>();
  private readonly queue = new FairQueue<Pending<Job, Result>>();
  private nextId = 1;
  private closed = false;
  /** Jobs handed to a worker since the pool started. */
  dispatched = 0;

  constructor(
    private readonly entry: URL,
    private readonly limits: WorkerPoolLimits,
  ) {}

  /**
   * Runs a job on a worker (at most `timeoutMs` of it) in `owner`'s lane, and charges the owner the
   * time a worker spent on it; rejects with WorkerJobError when no worker answered it. The memory in
   * `transfer` is handed to the worker instead of copied: the caller must not use it once the job is
   * dispatched.
   */
  async run(
    job: Job,
    owner: JobOwner = UNOWNED,
    { timeoutMs = this.limits.jobTimeoutMs, transfer = [] as readonly ArrayBuffer[] } = {},
  ): Promise<TimedReply<Result>> {
    let elapsedMs = 0;
    try {
      const reply = await this.enqueue(job, owner.lane, timeoutMs, transfer);
      elapsedMs = reply.elapsedMs;
      return reply;
    } catch (error) {
      if (error instanceof WorkerJobError) elapsedMs = error.elapsedMs;
      throw error;
    } finally {
      if (elapsedMs > 0) await owner.charge?.(elapsedMs);
    }
  }

  /** Refuses queued jobs and terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.drain()) pending.reject(new WorkerJobError('closed', 'The document workers are shut down.'));
    await Promise.all([...this.slots].map((slot) => this.discard(slot, new WorkerJobError('closed', 'The document workers are shut down.'))));
  }

  /** Workers alive now (idle, busy or starting). */
  get size(): number {
    return this.slots.size;
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.queue.size;
  }

  /** Kernel thread ids of the ready workers (Linux; empty elsewhere): what /proc/self/task/<id> describes. */
  get threadIds(): number[] {
    return [...this.slots].flatMap((slot) => (slot.threadId === null ? [] : [slot.threadId]));
  }

  private enqueue(job: Job, lane: string, timeoutMs: number, transfer: readonly ArrayBuffer[]): Promise<TimedReply<Result>> {
    if (this.closed) return Promise.reject(new WorkerJobError('closed', 'The document workers are shut down.'));
    const running = [...this.slots].filter((slot) => slot.current).length;
    const laneLimit = Math.max(1, Math.ceil(this.limits.queueLimit / 2));
    if (running + this.queue.size >= this.limits.size + this.limits.queueLimit || this.queue.waiting(lane) >= laneLimit) {
      return Promise.reject(new WorkerJobError('busy', 'Too many documents are being processed; try again shortly.'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push(lane, { job, lane, timeoutMs, transfer, resolve, reject });
      this.pump();
    });
  }

  /** Hands waiting jobs to idle workers, and starts workers for the jobs no worker will take soon. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.size === 0) break;
      if (!slot.ready || slot.current) continue;
      const next = this.queue.shift((lane) => this.mayTakeAnother(lane));
      if (!next) break;
      this.dispatch(slot, next);
    }
    let starting = [...this.slots].filter((slot) => !slot.ready).length;
    const may = (lane: string) => this.mayTakeAnother(lane);
    while (!this.closed && this.queue.size > starting && this.slots.size < this.limits.size && this.queue.has(may)) {
      this.spawn();
      starting++;
    }
    for (const slot of this.slots) if (slot.ready && !slot.current) this.retireWhenIdle(slot);
  }

  private spawn(): void {
    const start: WorkerStart = { nice: this.limits.nice ?? 0 };
    const worker = new Worker(this.entry, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      workerData: start,
      stdout: false,
      stderr: false,
    });
    const slot: Slot<Job, Result> = { worker, ready: false, threadId: null, jobs: 0 };
    this.slots.add(slot);
    worker.on('message', (message: WorkerReply<Result> | WorkerReady) => this.onMessage(slot, message));
    worker.on('error', () => void this.discard(slot, new WorkerJobError('crashed', 'The document could not be processed within the limits.')));
    worker.on('exit', () => void this.discard(slot, new WorkerJobError('crashed', 'The document worker stopped.')));
  }

  private onMessage(slot: Slot<Job, Result>, message: WorkerReply<Result> | WorkerReady): void {
    if ('ready' in message) {
      slot.ready = true;
      slot.threadId = message.threadId;
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
    current.resolve({ ...message, elapsedMs: performance.now() - current.startedAt });
    // Anything but a clean answer may have left the thread's state dirty: replace the worker.
    if (!message.ok || this.worn(slot, message.heapUsedBytes)) void this.discard(slot);
    else this.pump();
  }

  /**
   * Whether `lane` may have one more job running: a pool with `laneWorkers` keeps the rest of its
   * workers for the other lanes, so a lane whose jobs each run into the time limit cannot make
   * another lane's short job wait for them.
   */
  private mayTakeAnother(lane: string): boolean {
    const most = this.limits.laneWorkers;
    if (!most) return true;
    let running = 0;
    for (const slot of this.slots) if (slot.current?.lane === lane) running++;
    return running < most;
  }

  private retireWhenIdle(slot: Slot<Job, Result>): void {
    const idleMs = this.limits.idleMs ?? 0;
    if (idleMs <= 0 || slot.idleTimer) return;
    slot.idleTimer = setTimeout(() => void this.discard(slot), idleMs);
    slot.idleTimer.unref();
  }

  private worn(slot: Slot<Job, Result>, heapUsedBytes: number): boolean {
    return slot.jobs >= this.limits.maxJobsPerWorker || heapUsedBytes > this.limits.heapMb * RETIRE_AT_HEAP_SHARE * 1024 * 1024;
  }

  private dispatch(slot: Slot<Job, Result>, pending: Pending<Job, Result>): void {
    const id = this.nextId++;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const timer = setTimeout(
      () => void this.discard(slot, new WorkerJobError('timeout', `The document took longer than ${pending.timeoutMs} ms to process.`)),
      pending.timeoutMs,
    );
    slot.current = { ...pending, id, timer, startedAt: performance.now() };
    this.dispatched++;
    slot.worker.ref();
    try {
      slot.worker.postMessage({ id, job: pending.job }, pending.transfer);
    } catch {
      void this.discard(slot, new WorkerJobError('crashed', 'The document job could not be handed to a worker.'));
    }
  }

  /** Ends a worker, failing its job if it had one, and starts a replacement when jobs are waiting. */
  private async discard(slot: Slot<Job, Result>, failure?: WorkerJobError): Promise<void> {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.idleTimer);
    const current = slot.current;
    slot.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      const failed = failure ?? new WorkerJobError('crashed', 'The document worker stopped.');
      current.reject(new WorkerJobError(failed.kind, failed.message, performance.now() - current.startedAt));
    }
    // A worker that dies while starting would die again: fail the waiting jobs instead of respawning forever.
    if (!slot.ready) for (const pending of this.queue.drain()) pending.reject(new WorkerJobError('crashed', 'The document worker could not start.'));
    this.pump();
    await slot.worker.terminate().catch(() => undefined);
  }
}
