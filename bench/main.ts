/**
 * `npm run bench [-- auth lists upload issuance badges credentials hostile peers anchoring code-path bulk growth]`: prints figures, asserts nothing; without
 * arguments every section but `growth` (bench/growth.ts: BENCH_GROWTH_STUDENTS, BENCH_GROWTH_SMALL), `anchoring` (bench/anchoring.ts), `hostile` (a 60 s soak, BENCH_HOSTILE_SECONDS, then the neighbour scenarios of bench/neighbours.ts,
 * BENCH_NEIGHBOUR_SECONDS; BENCH_HOSTILE_PARTS=soak|neighbours runs one of the two), `peers` (bench/peers.ts) and `code-path` (bench/code-path.ts) runs. Exits non-zero only when
 * a section throws or a measured request failed. Knobs: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1),
 * BENCH_CONNECTIONS (16), BENCH_ISSUANCE_CLIENTS (8), BENCH_PROFILE=all|<words of case names> (CPU profile of the server thread),
 * BENCH_PROFILE_TOP (15), BENCH_SQL=1 (print the list and issuance queries), DATABASE_URL (use that server).
 * `bulk` (on request): BENCH_BULK (1000) certificates drawn from a template against as many uploaded, through the batch endpoint (bench/bulk-issuance.ts).
 * BENCH_BASE_DIR=<another build> turns `issuance` into this build against that one, separate processes, alternated
 * over BENCH_ROUNDS (3) rounds (bench/issuance-base.ts).
 */
import os from 'node:os';
import type { BenchEnv, Row } from './support.js';

const SECTIONS = ['auth', 'lists', 'upload', 'issuance', 'bulk', 'badges', 'credentials', 'hostile', 'peers', 'anchoring', 'code-path', 'growth'] as const;
/** Sections a plain `npm run bench` leaves out: a long soak, the separate-process comparison, 10,000 certificates anchored, 2,000 issued in batches, the traced code path, 1,000,000 students. */
const ON_REQUEST: readonly Section[] = ['hostile', 'peers', 'anchoring', 'bulk', 'code-path', 'growth'];
type Section = (typeof SECTIONS)[number];

function selectedSections(): Section[] {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => !SECTIONS.includes(arg as Section));
  if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
  return args.length > 0 ? (args as Section[]) : SECTIONS.filter((section) => !ON_REQUEST.includes(section));
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

function printHeader(sections: Section[], settings: string): void {
  const cpus = os.cpus();
  console.log('credential-service benchmarks');
  console.log(`  node ${process.version}, ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}`);
  console.log(`  NODE_ENV=${process.env.NODE_ENV}, PostgreSQL: ${process.env.DATABASE_URL ? "DATABASE_URL's server" : 'embedded, temp dir'}`);
  console.log(`  ${settings}; sections: ${sections.join(', ')}`);
  console.log(`  load average ${loadAverage()} (other processes on this machine skew absolute figures; compare rows of one table)`);
}

async function runUpload(): Promise<void> {
  console.log('\nupload');
  await (await import('./upload.js')).runUploadBench();
}

/** The sections that need the shared service run against one environment, opened once. */
async function runServiceSections(sections: Section[]): Promise<Row[]> {
  const { openBenchEnv } = await import('./support.js');
  const env: BenchEnv = await openBenchEnv();
  // An interrupted run still stops its PostgreSQL and removes the temp dir.
  const interrupted = () => void env.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  const rows: Row[] = [];
  try {
    if (sections.includes('auth')) rows.push(...(await (await import('./auth.js')).runAuthBench(env)));
    if (sections.includes('lists')) rows.push(...(await (await import('./lists.js')).runListsBench(env)));
    if (sections.includes('issuance')) rows.push(...(await (await import('./issuance.js')).runIssuanceBench(env)));
    if (sections.includes('bulk')) await (await import('./bulk-issuance.js')).measureBulk(env, Number(process.env.BENCH_BULK || 1000));
    if (sections.includes('badges')) rows.push(...(await (await import('./badges.js')).runBadgesBench(env)));
    if (sections.includes('credentials')) rows.push(...(await (await import('./credentials.js')).runCredentialsBench(env)));
    if (sections.includes('hostile')) await (await import('./hostile.js')).runHostileSections(env);
  } finally {
    process.off('SIGINT', interrupted);
    await env.stop();
  }
  return rows;
}

async function main(): Promise<number> {
  // graphql-js and Express read NODE_ENV when they load, so it is set before any of them is imported.
  process.env.NODE_ENV ??= 'production';
  const sections = selectedSections();
  const { settings, failed } = await import('./support.js');
  printHeader(sections, settings());
  const started = performance.now();
  const broken: string[] = [];
  const againstBase = Boolean(process.env.BENCH_BASE_DIR) && sections.includes('issuance');
  const inProcess = sections.filter(
    (section) => !['upload', 'peers', 'anchoring', 'code-path', 'growth'].includes(section) && !(againstBase && section === 'issuance'),
  );
  const rows = inProcess.length > 0 ? await runServiceSections(inProcess) : [];
  if (againstBase) {
    console.log('\nissuance: this build against BENCH_BASE_DIR, every build a separate process');
    const measured = await (await import('./issuance-base.js')).runIssuanceBaseBench(process.env.BENCH_BASE_DIR!);
    broken.push(
      ...measured
        .filter((row) => row.failed > 0 || row.issued === 0)
        .map((row) => `issuance, ${row.build} build, round ${row.round}: ${row.failed} failed, ${row.issued} issued`),
    );
  }
  if (sections.includes('peers')) {
    console.log('\npeers: the list page against PostGraphile 5 and one SQL statement, every target a separate process');
    await (await import('./peers.js')).runPeersBench();
  }
  if (sections.includes('upload')) await runUpload();
  // Its own service: anchoring on, the embedded chain.
  if (sections.includes('anchoring')) await (await import('./anchoring.js')).runAnchoringBench();
  // Its own service: no background work, whose functions would run during the traced requests.
  if (sections.includes('code-path')) await (await import('./code-path.js')).runCodePathBench();
  // Its own server: two databases, 10,000 and 1,000,000 students (bench/growth.ts).
  if (sections.includes('growth')) await (await import('./growth.js')).runGrowthBench();
  for (const row of failed(rows)) broken.push(`"${row.name}" had ${row.non2xx} non-2xx responses and ${row.errors} errors/timeouts`);
  for (const problem of broken) console.error(`ERROR: ${problem}`);
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${loadAverage()}`);
  return broken.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
