import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Gives memory back once the process turns quiet after a load. V8 runs its memory-reducing
 * collection only when it sees allocation slow down at a collection, and an idle service collects
 * nothing, so the garbage of a burst of large answers and the pages V8 keeps for reuse stayed resident:
 * a minute after the neighbours' attack RSS was +54 to +124 % of its start, while one such
 * collection brings it below the start (docs/benchmarks.md, Neighbours). Here: every SAMPLE_MS the
 * event loop's utilisation is read; after QUIET_SAMPLES samples in which no request arrived
 * (`noteArrival`) and the loop was under QUIET busy, with RSS over its floor by GROWTH, one
 * memory-reducing collection runs and what it leaves is the new floor, so it runs again only after
 * RSS has grown again. One per process, however many services it hosts. Its final pause is 55–85 ms on the development machine: light traffic is not
 * quiet (at 8 requests a second the loop was under 2 % busy, and one of them waited 70 ms behind it), so
 * what makes a sample quiet is that no request arrived. QUIET only tells the service's own background work
 * (the lease sweep, webhook retries to endpoints that never answer: 3–8 % after the neighbours bench) from
 * work that would wait behind the pause; at 2 % that background work held the collection off for good and
 * RSS stayed +25 % a minute after the load (docs/benchmarks.md, session 20).
 */
export const SAMPLE_MS = 5_000;
const QUIET = 0.1;
const QUIET_SAMPLES = 2;
const GROWTH = 1.2;

export interface IdleMemoryState {
  /** Quiet samples in a row. */
  quiet: number;
  /** RSS after the last collection (or at start): what counts as grown. */
  floorRss: number;
}

/** The state after one sample (`arrivals`: requests that arrived during it), and whether to collect now. */
export function nextSample(state: IdleMemoryState, utilization: number, rss: number, arrivals = 0): { state: IdleMemoryState; collect: boolean } {
  const quiet = utilization < QUIET && arrivals === 0 ? state.quiet + 1 : 0;
  const collect = quiet >= QUIET_SAMPLES && rss > state.floorRss * GROWTH;
  // Until the collection reports what it left, the RSS it started from is the floor: one collection per growth.
  return { state: { quiet: collect ? 0 : quiet, floorRss: collect ? rss : state.floorRss }, collect };
}

type Collect = (options: { type: 'major'; execution: 'async'; flavor: 'last-resort' }) => Promise<void>;

/** V8's `gc`, taken without exposing it on the global object (the flag is set only while it is read). */
export function memoryReducingCollection(): () => Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc') as Collect;
  v8.setFlagsFromString('--no-expose-gc');
  return () => collect({ type: 'major', execution: 'async', flavor: 'last-resort' });
}

let arrived = 0;
let users = 0;
let sampler: NodeJS.Timeout | undefined;

/** Counts a request's arrival: a sample in which any arrived is not quiet. */
export function noteArrival(): void {
  arrived++;
}

/**
 * Starts the sampling (one per process, however many services it hosts: an unref'd timer, it never keeps
 * the process alive) and returns what stops this service's use of it; the last stop ends it. A sampler left
 * running after its service (a test process hosts service after service) would see no arrivals and collect
 * a growing heap again and again.
 */
export function keepMemoryLowWhenIdle(onCollected?: (before: number, after: number) => void): () => void {
  users++;
  if (!sampler) {
    const collect = memoryReducingCollection();
    let state: IdleMemoryState = { quiet: 0, floorRss: process.memoryUsage().rss };
    let last = performance.eventLoopUtilization();
    arrived = 0;
    sampler = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const { utilization } = performance.eventLoopUtilization(now, last);
      last = now;
      const before = process.memoryUsage().rss;
      const step = nextSample(state, utilization, before, arrived);
      arrived = 0;
      state = step.state;
      if (!step.collect) return;
      void collect().then(() => {
        const after = process.memoryUsage().rss;
        state = { ...state, floorRss: after };
        onCollected?.(before, after);
      });
    }, SAMPLE_MS).unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--users === 0) {
      clearInterval(sampler);
      sampler = undefined;
    }
  };
}
