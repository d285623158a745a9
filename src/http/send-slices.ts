import type { Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Resolves when the socket has taken what was written, or when the response is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Sends an answer's slices (json-text.ts) and ends it: one slice a turn of the event loop, the next
 * only once the socket has taken the last. Written in one loop, Node corks them into one `writev` that
 * encodes and copies the whole answer in one native call (6.3 MB: 20–40 ms of the event loop under
 * load, docs/benchmarks.md, Neighbours), and a client that reads slowly leaves it all queued.
 */
export async function sendSlices(res: Response, slices: readonly string[]): Promise<void> {
  for (let i = 0; i < slices.length; i++) {
    if (res.destroyed) return;
    const taken = res.write(slices[i]!);
    if (i === slices.length - 1) break;
    if (!taken && !res.destroyed) await drained(res);
    await nextTurn();
  }
  res.end();
}
