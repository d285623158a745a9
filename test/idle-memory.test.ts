import { memoryReducingCollection, nextSample, type IdleMemoryState } from '../src/health/idle-memory.js';

const MB = 1024 * 1024;
const start: IdleMemoryState = { quiet: 0, floorRss: 300 * MB };

/** Feeds samples of [utilization, rss in MB] and says after which ones a collection ran. */
function collections(samples: [number, number][]): number[] {
  let state = start;
  const ran: number[] = [];
  samples.forEach(([utilization, rss], index) => {
    const step = nextSample(state, utilization, rss * MB);
    state = step.state;
    if (step.collect) ran.push(index);
  });
  return ran;
}

test('one memory-reducing collection once two quiet samples follow a growth of RSS', () => {
  expect(
    collections([
      [0.9, 500],
      [0.01, 500],
      [0.01, 500],
      [0.01, 500],
      [0.01, 500],
    ]),
  ).toEqual([2]);
  // A process that was never busy but grew (a slow leak of garbage) is collected too.
  expect(
    collections([
      [0.01, 900],
      [0.01, 900],
      [0.01, 900],
    ]),
  ).toEqual([1]);
});

test('none while requests keep coming or the loop is busy, or when RSS stayed near its floor', () => {
  expect(
    collections([
      [0.9, 500],
      [0.3, 500],
      [0.01, 500],
      [0.3, 500],
      [0.01, 500],
    ]),
  ).toEqual([]);
  // Background work alone (a few per cent of the loop, no request arriving) is quiet.
  expect(
    collections([
      [0.9, 500],
      [0.06, 500],
      [0.06, 500],
    ]),
  ).toEqual([2]);
  expect(
    collections([
      [0.9, 350],
      [0.01, 350],
      [0.01, 350],
      [0.01, 350],
    ]),
  ).toEqual([]);
});

test('what a collection leaves is the new floor: it runs again only after RSS grew again', () => {
  let state = start;
  const feed = (utilization: number, rss: number) => {
    const step = nextSample(state, utilization, rss * MB);
    state = step.state;
    return step.collect;
  };
  expect([feed(0.01, 600), feed(0.01, 600)]).toEqual([false, true]);
  state = { ...state, floorRss: 550 * MB }; // what the collection left
  expect([feed(0.01, 600), feed(0.01, 600), feed(0.01, 600)]).toEqual([false, false, false]);
  expect([feed(0.01, 700), feed(0.01, 700)]).toEqual([true, false]);
});

test('the collection gives the garbage back', async () => {
  let junk: object[] | undefined = Array.from({ length: 2_000_000 }, (_, index) => ({ index, text: `row ${index}` }));
  const before = process.memoryUsage().heapUsed;
  expect(junk.length).toBe(2_000_000);
  junk = undefined;
  await memoryReducingCollection()();
  expect(process.memoryUsage().heapUsed).toBeLessThan(before - 50 * MB);
  expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
});

test('a sample in which requests arrived is not quiet, however light the load', () => {
  let state = start;
  const ran: number[] = [];
  [0, 3, 1, 0, 0].forEach((arrivals, index) => {
    const step = nextSample(state, 0.001, 500 * MB, arrivals);
    state = step.state;
    if (step.collect) ran.push(index);
  });
  expect(ran).toEqual([4]);
});
