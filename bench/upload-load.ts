/**
 * The upload bench's other process (bench/upload.ts forks it): the HTTP clients, and the raw-insert
 * baseline, a minimal plain-pg implementation storing the same bytes the same way. Neither shares the
 * server's event loop or heap, so the server's throughput and RSS are its own. Commands come over the
 * IPC channel, one at a time; each answers with the seconds it took.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

export interface LoadTarget {
  url: string;
  token: string;
  tenant: string;
  /** The schema owner's URL: the baseline makes its own table, which the service's app role may not. */
  ownerDatabaseUrl: string;
  chunkBytes: number;
}

export type LoadCommand =
  | { kind: 'http'; name: string; size: number; count: number; concurrency: number }
  | { kind: 'insert'; name: string; size: number; count: number }
  | { kind: 'exit' };

export type LoadReply = { ok: true; seconds: number } | { ok: false; error: string };

const BLOCK = randomBytes(256 * 1024);

/** The file's bytes, generated as they are sent: a unique PDF header, then the shared block repeated. */
function* content(size: number, label: string): Generator<Buffer> {
  const head = Buffer.from(`%PDF-1.7\n% bench ${label}\n`);
  yield head;
  for (let left = size - head.length; left > 0; left -= BLOCK.length) yield left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
}

const label = (name: string, index: number) => `${name.replace(/\W+/g, '-')}-${index}-${randomBytes(4).toString('hex')}`;

/** POST /files with one `files[]` part, streamed with backpressure; resolves with the status. */
function uploadOne(target: LoadTarget, size: number, name: string, agent: http.Agent): Promise<number> {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="${name}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${target.url}/api/v1/files`, {
      method: 'POST',
      agent,
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
      for (const chunk of content(size, name)) {
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

/** `count` uploads by `concurrency` clients on kept-alive connections, as a real client would. */
function httpCase(target: LoadTarget, { name, size, count, concurrency }: Extract<LoadCommand, { kind: 'http' }>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  return timed(async () => {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const file = label(name, next++);
          const status = await uploadOne(target, size, file, agent);
          if (status !== 201) throw new Error(`upload ${file} answered ${status}`);
        }
      }),
    );
  }).finally(() => agent.destroy());
}

let baseline: pg.Client | undefined;

/**
 * The baseline's own connection and table: a copy of `file_chunks` (`like ... including all` keeps
 * its primary key and the external, uncompressed storage of `data`), so both store the same bytes the
 * same way.
 */
async function baselineClient(target: LoadTarget): Promise<pg.Client> {
  if (baseline) return baseline;
  const client = new pg.Client({ connectionString: target.ownerDatabaseUrl });
  client.on('error', () => undefined); // a connection ended by the server surfaces as the failed query instead
  await client.connect();
  await client.query('create table if not exists bench_chunks (like file_chunks including all)');
  return (baseline = client);
}

/**
 * The ceiling: each file in one transaction of chunk-sized `insert`s with bound parameters, as
 * the PostgreSQL storage driver writes them, and nothing else: no HTTP, no hashing, no record.
 */
async function insertCase(target: LoadTarget, { name, size, count }: Extract<LoadCommand, { kind: 'insert' }>): Promise<number> {
  const client = await baselineClient(target);
  const chunk = Buffer.allocUnsafe(target.chunkBytes);
  return timed(async () => {
    for (let file = 0; file < count; file++) {
      const key = randomUUID();
      let [seq, filled] = [0, 0];
      const flush = async () => {
        await client.query('insert into bench_chunks (file_uuid, seq, data) values ($1, $2, $3)', [key, seq++, chunk.subarray(0, filled)]);
        filled = 0;
      };
      await client.query('begin');
      for (const part of content(size, label(name, file))) {
        for (let at = 0; at < part.length;) {
          const copied = part.copy(chunk, filled, at);
          [filled, at] = [filled + copied, at + copied];
          if (filled === chunk.length) await flush();
        }
      }
      if (filled > 0) await flush();
      await client.query('commit');
    }
  });
}

async function run(target: LoadTarget, command: LoadCommand): Promise<number> {
  if (command.kind === 'http') return httpCase(target, command);
  if (command.kind === 'insert') return insertCase(target, command);
  throw new Error(`unknown command ${JSON.stringify(command)}`);
}

async function exit(): Promise<void> {
  if (baseline) {
    await baseline.query('drop table if exists bench_chunks').catch(() => undefined);
    await baseline.end();
  }
  process.disconnect?.();
}

if (process.send) {
  const target = JSON.parse(process.env.UPLOAD_LOAD_TARGET ?? '{}') as LoadTarget;
  process.on('message', (command: LoadCommand) => {
    if (command.kind === 'exit') return void exit();
    run(target, command).then(
      (seconds) => process.send!({ ok: true, seconds } satisfies LoadReply),
      (error: unknown) => process.send!({ ok: false, error: String((error as Error)?.stack ?? error) } satisfies LoadReply),
    );
  });
}
