/**
 * Issue 33's bulk target: BENCH_BULK certificates (1,000 for the issue) issued through
 * `POST /certificates/batch` drawn from the formal diploma template, against as many from uploaded
 * PDFs, on one service. Both kinds run in BENCH_BULK_ROUNDS (4) alternated rounds (A B B A A B …),
 * each round one batch job timed from its POST until GET /jobs/{uuid} says completed, so the load of a
 * shared machine falls on both alike. `npm run bench -- bulk` (BENCH_BULK=<n> for another count).
 */
import { issueOne, seedIssuances, type IssuanceTarget } from './issuance.js';

const ROUNDS = Number(process.env.BENCH_BULK_ROUNDS || 4);
const POLL_MS = 100;
const BATCH_LIMIT = 500; // MAX_BATCH_ITEMS

type Kind = 'uploaded' | 'rendered';

export interface BulkResult {
  kind: Kind;
  certificates: number;
  seconds: number;
}

async function call(env: IssuanceTarget, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const headers = body === undefined ? env.auth : { ...env.auth, 'content-type': 'application/json' };
  const response = await fetch(`${env.url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text).data;
}

/** One batch job of `bodies`, from its POST until it is completed; throws unless every item was issued. */
async function issueBatch(env: IssuanceTarget, bodies: string[]): Promise<number> {
  const started = performance.now();
  let job = await call(env, 'POST', '/certificates/batch', { inputs: bodies.map((body) => JSON.parse(body)) });
  while (job.status !== 'completed') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await call(env, 'GET', `/jobs/${job.uuid}`);
  }
  const seconds = (performance.now() - started) / 1000;
  if (job.done !== bodies.length || job.failed !== 0) {
    const failure = (job.results as { error: unknown }[]).find((result) => result.error);
    throw new Error(`batch issued ${job.done} of ${bodies.length}, ${job.failed} failed: ${JSON.stringify(failure?.error)}`);
  }
  return seconds;
}

export async function measureBulk(env: IssuanceTarget, count: number): Promise<BulkResult[]> {
  const perRound = Math.ceil(count / ROUNDS);
  if (perRound > BATCH_LIMIT) throw new Error(`BENCH_BULK / BENCH_BULK_ROUNDS must be at most ${BATCH_LIMIT} a round`);
  const started = performance.now();
  const seeded: Record<Kind, string[]> = {
    uploaded: (await seedIssuances(env, count + 1, { name: 'Bulk Institute (uploads)', country: 'BR' }, 'bulk-uploaded', 'upload')).bodies,
    rendered: (await seedIssuances(env, count + 1, { name: 'Bulk Institute (templates)', country: 'BR' }, 'bulk-rendered', 'template')).bodies,
  };
  // The first issuance of each institution makes its signing key: not part of the bulk.
  for (const bodies of Object.values(seeded)) await issueOne(env, bodies.shift()!);
  console.log(`\nbulk: seeded ${count} uploaded and ${count} template issuances in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const totals: Record<Kind, BulkResult> = {
    uploaded: { kind: 'uploaded', certificates: 0, seconds: 0 },
    rendered: { kind: 'rendered', certificates: 0, seconds: 0 },
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order: Kind[] = round % 2 === 0 ? ['uploaded', 'rendered'] : ['rendered', 'uploaded'];
    for (const kind of order) {
      const bodies = seeded[kind].slice(round * perRound, Math.min(count, (round + 1) * perRound));
      if (bodies.length === 0) continue;
      const seconds = await issueBatch(env, bodies);
      totals[kind].certificates += bodies.length;
      totals[kind].seconds += seconds;
      console.log(`  round ${round + 1}: ${bodies.length} ${kind} in ${seconds.toFixed(1)} s (${(bodies.length / seconds).toFixed(1)}/s)`);
    }
  }
  const [uploaded, rendered] = [totals.uploaded, totals.rendered];
  const rate = (result: BulkResult) => result.certificates / result.seconds;
  const ratio = rate(rendered) / rate(uploaded);
  console.log(
    `bulk issuance (POST /certificates/batch, ${ROUNDS} alternated rounds): ${rendered.certificates} rendered at ${rate(rendered).toFixed(1)}/s vs ${uploaded.certificates} uploaded at ${rate(uploaded).toFixed(1)}/s = ${(100 * ratio).toFixed(0)}% (target >= 80%: ${ratio >= 0.8 ? 'met' : 'MISSED'})`,
  );
  return [uploaded, rendered];
}
