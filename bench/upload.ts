/**
 * Upload benchmark: throughput of POST /api/v1/files over real HTTP for 1 MiB and 20 MiB files, the
 * server's RSS growth while 4 clients upload 20 MiB files at once, and, as the ceiling, the same
 * bytes written straight into PostgreSQL by a plain pg client. The service runs in this process on a
 * fresh embedded PostgreSQL; clients stream their bodies from one reused block, so the RSS measured
 * is the server's, not the clients' request bodies.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { CHUNK_BYTES } from '../src/files/storage/postgres-storage.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';

const MiB = 1024 * 1024;
const BLOCK = randomBytes(256 * 1024);
const RSS_TARGET_MiB = 64;

interface Target {
  url: string;
  token: string;
  tenant: string;
}

export interface UploadBenchResult {
  rows: { case: string; files: number; mib: number; seconds: number; mibPerSecond: number }[];
  rssBaselineMiB: number;
  rssPeakMiB: number;
  rssGrowthMiB: number;
  /** V8 heap and Buffer memory at the peak: what the growth is made of. */
  heapAtPeakMiB: number;
  buffersAtPeakMiB: number;
}

/** The file's bytes, generated as they are sent: a unique PDF header, then the shared block repeated. */
function* content(size: number, label: string): Generator<Buffer> {
  const head = Buffer.from(`%PDF-1.7\n% bench ${label}\n`);
  yield head;
  for (let left = size - head.length; left > 0; left -= BLOCK.length) yield left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
}

/** POST /files with one `files[]` part, streamed with backpressure; resolves with the status. */
function uploadOne(target: Target, size: number, label: string): Promise<number> {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="${label}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${target.url}/api/v1/files`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.token}`,
        'x-tenant': target.tenant,
        accept: 'application/json',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    (async () => {
      req.write(head);
      for (const chunk of content(size, label)) {
        if (!req.write(chunk)) await new Promise((drained) => req.once('drain', drained));
      }
      req.end(tail);
    })().catch(reject);
  });
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function httpCase(target: Target, name: string, size: number, count: number, concurrency = 1): Promise<UploadBenchResult['rows'][number]> {
  let next = 0;
  const seconds = await timed(async () => {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const label = `${name}-${next++}-${randomBytes(4).toString('hex')}`;
          const status = await uploadOne(target, size, label);
          if (status !== 201) throw new Error(`upload ${label} answered ${status}`);
        }
      }),
    );
  });
  const mib = (size * count) / MiB;
  return { case: name, files: count, mib, seconds, mibPerSecond: mib / seconds };
}

/** The ceiling: the same bytes into a chunk table by a plain pg client, one transaction a file. */
async function baselineCase(databaseUrl: string, name: string, size: number, count: number): Promise<UploadBenchResult['rows'][number]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // a connection ended by the server surfaces as the failed query instead
  await client.connect();
  await client.query('create table bench_chunks (file_uuid uuid, seq int, data bytea, primary key (file_uuid, seq))');
  await client.query('alter table bench_chunks alter column data set storage external');
  try {
    const seconds = await timed(async () => {
      for (let file = 0; file < count; file++) {
        await client.query('begin');
        const key = (await client.query<{ uuid: string }>('select gen_random_uuid() as uuid')).rows[0]!.uuid;
        let seq = 0;
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        const flush = async (bytes: Buffer) => void (await client.query('insert into bench_chunks values ($1, $2, $3)', [key, seq++, bytes]));
        for (const chunk of content(size, `${name}-${file}`)) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          while (pendingBytes >= CHUNK_BYTES) {
            const all = Buffer.concat(pending, pendingBytes);
            await flush(all.subarray(0, CHUNK_BYTES));
            pending = [all.subarray(CHUNK_BYTES)];
            pendingBytes -= CHUNK_BYTES;
          }
        }
        if (pendingBytes > 0) await flush(Buffer.concat(pending, pendingBytes));
        await client.query('commit');
      }
    });
    const mib = (size * count) / MiB;
    return { case: name, files: count, mib, seconds, mibPerSecond: mib / seconds };
  } finally {
    await client.query('drop table bench_chunks');
    await client.end();
  }
}

/** A full garbage collection, so the baseline RSS holds only what is live. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Peak RSS while `work` runs, sampled every 5 ms, from a baseline taken right after a full GC. */
async function peakRss(work: () => Promise<unknown>): Promise<{ baseline: number; peak: number; heapAtPeak: number; buffersAtPeak: number }> {
  collectGarbage();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  let atPeak = process.memoryUsage();
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) [peak, atPeak] = [usage.rss, usage];
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return { baseline, peak, heapAtPeak: atPeak.heapTotal, buffersAtPeak: atPeak.arrayBuffers };
}

async function signIn(url: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

function print(result: UploadBenchResult): void {
  const table = result.rows.map((row) => ({
    case: row.case,
    files: row.files,
    'MiB total': row.mib.toFixed(0),
    seconds: row.seconds.toFixed(2),
    'MiB/s': row.mibPerSecond.toFixed(1),
  }));
  console.table(table);
  const verdict = result.rssGrowthMiB < RSS_TARGET_MiB ? 'within' : 'OVER';
  console.log(
    `server RSS while 4 clients upload 20 MiB each: baseline ${result.rssBaselineMiB.toFixed(0)} MiB, peak ${result.rssPeakMiB.toFixed(0)} MiB, ` +
      `growth ${result.rssGrowthMiB.toFixed(1)} MiB (${verdict} the ${RSS_TARGET_MiB} MiB target); at the peak V8 heap ${result.heapAtPeakMiB.toFixed(0)} MiB, ` +
      `Buffers ${result.buffersAtPeakMiB.toFixed(0)} MiB (80 MiB of file content was in flight)`,
  );
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
  try {
    const target = { url: service.url, token: await signIn(service.url, clientId, clientSecret), tenant: 'bench' };
    await httpCase(target, 'warm-up', MiB, 4);
    // Memory first, before the other cases have grown the heap: growth is measured from a warm, idle server.
    let concurrent: UploadBenchResult['rows'][number] | undefined;
    const rss = await peakRss(async () => (concurrent = await httpCase(target, 'HTTP upload, 20 MiB x 4 clients', 20 * MiB, 8, 4)));
    const rows = [await httpCase(target, 'HTTP upload, 1 MiB files', MiB, 32), await httpCase(target, 'HTTP upload, 20 MiB files', 20 * MiB, 5), concurrent!];
    // The baseline makes its own table, which the service's app role may not.
    const databaseUrl = service.ownerDatabaseUrl;
    rows.push(
      await baselineCase(databaseUrl, 'plain pg insert, 1 MiB files', MiB, 32),
      await baselineCase(databaseUrl, 'plain pg insert, 20 MiB files', 20 * MiB, 5),
    );
    const result = {
      rows,
      rssBaselineMiB: rss.baseline / MiB,
      rssPeakMiB: rss.peak / MiB,
      rssGrowthMiB: (rss.peak - rss.baseline) / MiB,
      heapAtPeakMiB: rss.heapAtPeak / MiB,
      buffersAtPeakMiB: rss.buffersAtPeak / MiB,
    };
    print(result);
    return result;
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await runUploadBench();
}
