/**
 * Upload benchmark: throughput of POST /api/v1/files and of GraphQL `uploadFiles` over real HTTP for
 * 1 MiB and 20 MiB files against, as the ceiling, the same bytes inserted into a copy of `file_chunks`
 * by a plain pg client; and the server's RSS growth while 4 clients upload 20 MiB files at once, over
 * each transport. The service runs in this process on
 * a fresh embedded PostgreSQL. The clients and the baseline run in a forked process (upload-load.ts):
 * inside this one they would take event-loop time from the server they measure and add their own
 * buffers to its RSS. Service and baseline alternate over BENCH_UPLOAD_ROUNDS rounds, so a change in
 * the machine's load touches both sides of a ratio.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadConfig } from '../src/config.js';
import { CHUNK_BYTES } from '../src/files/storage/postgres-storage.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { profiled, shouldProfile } from './profile.js';
import type { LoadCommand, LoadReply, LoadTarget, Transport } from './upload-load.js';

const MiB = 1024 * 1024;
const RSS_TARGET_MiB = 64;
const ROUNDS = Number(process.env.BENCH_UPLOAD_ROUNDS || 3);
const RSS_RUNS = Number(process.env.BENCH_UPLOAD_RSS_RUNS || 1);

interface Row {
  case: string;
  files: number;
  mib: number;
  seconds: number;
  /** CPU of this process (the server) while the case ran; undefined for the baseline, which runs elsewhere. */
  serverCpuMs?: number;
}

interface RssRun {
  transport: Transport;
  baselineMiB: number;
  peakMiB: number;
  growthMiB: number;
  /** V8 heap and Buffer memory at the peak: what the growth is made of. */
  heapAtPeakMiB: number;
  /** Growth of the V8 heap's resident pages: the young generation is touched again after the full GC of the baseline. */
  heapGrowthMiB: number;
  buffersAtPeakMiB: number;
  /** RSS growth still there after a full GC once the uploads are done: what the uploads kept, not garbage awaiting collection. */
  retainedMiB: number;
}

export interface UploadBenchResult {
  rows: Row[];
  rss: RssRun[];
}

/** The load process, driven one command at a time. */
function startLoad(target: LoadTarget): { run(command: LoadCommand): Promise<number>; stop(): Promise<void> } {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'upload-load.js');
  const child: ChildProcess = fork(script, [], { execArgv: [], env: { ...process.env, UPLOAD_LOAD_TARGET: JSON.stringify(target) }, stdio: 'inherit' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    run: (command) =>
      new Promise((resolve, reject) => {
        const gone = () => reject(new Error('the upload load process exited'));
        child.once('exit', gone);
        child.once('message', (reply: LoadReply) => {
          child.off('exit', gone);
          if (reply.ok) resolve(reply.seconds);
          else reject(new Error(`load process: ${reply.error}`));
        });
        child.send(command);
      }),
    async stop() {
      if (child.connected) child.send({ kind: 'exit' } satisfies LoadCommand);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      if (child.exitCode === null) child.kill();
    },
  };
}

/** A full garbage collection, so the baseline RSS holds only what is live. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Peak RSS while `work` runs, sampled every 5 ms, from a baseline taken right after a full GC. */
async function peakRss(transport: Transport, work: () => Promise<unknown>): Promise<RssRun> {
  collectGarbage();
  const baseline = process.memoryUsage.rss();
  const heapBaseline = v8.getHeapStatistics().total_physical_size;
  let peak = baseline;
  let atPeak = process.memoryUsage();
  let heapAtPeak = heapBaseline;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) [peak, atPeak, heapAtPeak] = [usage.rss, usage, v8.getHeapStatistics().total_physical_size];
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  collectGarbage();
  const afterGc = process.memoryUsage.rss();
  return {
    transport,
    baselineMiB: baseline / MiB,
    peakMiB: peak / MiB,
    growthMiB: (peak - baseline) / MiB,
    heapAtPeakMiB: atPeak.heapTotal / MiB,
    heapGrowthMiB: (heapAtPeak - heapBaseline) / MiB,
    buffersAtPeakMiB: atPeak.arrayBuffers / MiB,
    retainedMiB: (afterGc - baseline) / MiB,
  };
}

/** Runs one command in the load process; for HTTP cases also this (the server's) process's CPU time. */
async function measured(load: ReturnType<typeof startLoad>, command: Exclude<LoadCommand, { kind: 'exit' }>): Promise<Row> {
  const cpu = process.cpuUsage();
  const run = () => load.run(command);
  const seconds = command.kind === 'http' && shouldProfile(command.name) ? await profiled(command.name, run) : await run();
  const used = process.cpuUsage(cpu);
  const serverCpuMs = command.kind === 'http' ? (used.user + used.system) / 1000 : undefined;
  return { case: command.name, files: command.count, mib: (command.size * command.count) / MiB, seconds, serverCpuMs };
}

/** Rows of the same case summed over the rounds. */
function summed(rows: Row[]): Row[] {
  const byCase = new Map<string, Row>();
  for (const row of rows) {
    const total = byCase.get(row.case);
    if (!total) byCase.set(row.case, { ...row });
    else {
      total.files += row.files;
      total.mib += row.mib;
      total.seconds += row.seconds;
      if (row.serverCpuMs !== undefined) total.serverCpuMs = (total.serverCpuMs ?? 0) + row.serverCpuMs;
    }
  }
  return [...byCase.values()];
}

async function signIn(url: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

const BASELINE_OF: Record<string, string> = {
  'HTTP upload, 1 MiB files': 'plain pg insert, 1 MiB files',
  'HTTP upload, 20 MiB files': 'plain pg insert, 20 MiB files',
  'GraphQL upload, 1 MiB files': 'plain pg insert, 1 MiB files',
  'GraphQL upload, 20 MiB files': 'plain pg insert, 20 MiB files',
};

function print(result: UploadBenchResult): void {
  const rate = (row: Row) => row.mib / row.seconds;
  const table = result.rows.map((row) => {
    const baseline = result.rows.find((other) => other.case === BASELINE_OF[row.case]);
    return {
      case: row.case,
      files: row.files,
      'MiB total': row.mib.toFixed(0),
      seconds: row.seconds.toFixed(2),
      'MiB/s': rate(row).toFixed(1),
      'x baseline': baseline ? (rate(row) / rate(baseline)).toFixed(2) : '',
      'server CPU ms/MiB': row.serverCpuMs === undefined ? '-' : (row.serverCpuMs / row.mib).toFixed(1),
    };
  });
  console.table(table);
  for (const [index, run] of result.rss.entries()) {
    const verdict = run.growthMiB < RSS_TARGET_MiB ? 'within' : 'OVER';
    console.log(
      `server RSS while 4 clients upload 20 MiB each (${run.transport}), run ${index + 1}: baseline ${run.baselineMiB.toFixed(0)} MiB, peak ${run.peakMiB.toFixed(0)} MiB, ` +
        `growth ${run.growthMiB.toFixed(1)} MiB (${verdict} the ${RSS_TARGET_MiB} MiB target), of which V8 heap pages ${run.heapGrowthMiB.toFixed(1)} MiB; at the peak V8 heap ${run.heapAtPeakMiB.toFixed(0)} MiB, ` +
        `Buffers ${run.buffersAtPeakMiB.toFixed(0)} MiB (80 MiB of file content was in flight); after a full GC ${run.retainedMiB.toFixed(1)} MiB above the baseline`,
    );
  }
}

export async function runUploadBench(): Promise<UploadBenchResult> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'upload-bench-'));
  await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
  const [clientId, clientSecret] = ['bench-client', randomBytes(18).toString('base64url')];
  const config = loadConfig({
    NODE_ENV: 'production',
    PUBLIC_BASE_URL: 'http://bench.invalid',
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NOTIFICATION_WORKER: 'off',
    SEED_TENANT: 'bench',
    SEED_CLIENT_ID: clientId,
    SEED_CLIENT_SECRET: clientSecret,
    RATE_LIMIT_API_PER_MINUTE: '0', // measures uploads, not the throttle
  });
  const service = await startService(config, createLogger('warn'));
  let load: ReturnType<typeof startLoad> | undefined;
  try {
    const token = await signIn(service.url, clientId, clientSecret);
    load = startLoad({ url: service.url, token, tenant: 'bench', ownerDatabaseUrl: service.ownerDatabaseUrl, chunkBytes: CHUNK_BYTES });
    const http = (name: string, size: number, count: number, concurrency = 1, transport: Transport = 'REST') =>
      measured(load!, { kind: 'http', name, size, count, concurrency, transport });
    const insert = (name: string, size: number, count: number) => measured(load!, { kind: 'insert', name, size, count });
    await http('warm-up', MiB, 4);
    await insert('warm-up', MiB, 4);
    // Memory first, before the other cases have grown the heap: growth is measured from a warm, idle server.
    const rss: RssRun[] = [];
    const concurrent: Row[] = [];
    for (let run = 0; run < RSS_RUNS; run++)
      for (const transport of ['REST', 'GraphQL'] as const) {
        const name = `${transport === 'REST' ? 'HTTP' : 'GraphQL'} upload, 20 MiB x 4 clients`;
        rss.push(await peakRss(transport, async () => concurrent.push(await http(name, 20 * MiB, 8, 4, transport))));
      }
    const rounds: Row[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push(await insert('plain pg insert, 1 MiB files', MiB, 16), await http('HTTP upload, 1 MiB files', MiB, 16));
      rounds.push(await insert('plain pg insert, 20 MiB files', 20 * MiB, 2), await http('HTTP upload, 20 MiB files', 20 * MiB, 2));
      rounds.push(await http('GraphQL upload, 1 MiB files', MiB, 16, 1, 'GraphQL'), await http('GraphQL upload, 20 MiB files', 20 * MiB, 2, 1, 'GraphQL'));
    }
    const result = { rows: [...summed(rounds), ...summed(concurrent)], rss };
    print(result);
    return result;
  } finally {
    await load?.stop();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await runUploadBench();
}
