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
  | { kind: 'http'; name: string; size: number; count: number; concurrency: number; transport: Transport }
  | { kind: 'insert'; name: string; size: number; count: number }
  | { kind: 'exit' };

/** REST's `POST /files` form, or a GraphQL multipart request for `uploadFiles`. */
export type Transport = 'REST' | 'GraphQL';

export type LoadReply = { ok: true; seconds: number } | { ok: false; error: string };

const BLOCK = randomBytes(256 * 1024);

/** The file's bytes, generated as they are sent: a unique PDF header, then the shared block repeated. */
function* content(size: number, label: string): Generator<Buffer> {
  const head = Buffer.from(`%PDF-1.7\n% bench ${label}\n`);
  yield head;
  for (let left = size - head.length; left > 0; left -= BLOCK.length) yield left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
}

const label = (name: string, index: number) => `${name.replace(/\W+/g, '-')}-${index}-${randomBytes(4).toString('hex')}`;

const UPLOAD_OPERATION = JSON.stringify({ query: 'mutation($files: [Upload!]!) { uploadFiles(files: $files) { uuid } }', variables: { files: [null] } });

/** One file as a REST form (`files[]`) or a GraphQL multipart request (`operations`, `map`, then the file). */
function form(transport: Transport, boundary: string, name: string): { path: string; head: Buffer; tail: Buffer; ok: number } {
  const field = (fieldName: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${fieldName}"\r\n\r\n${value}\r\n`;
  const fileField = transport === 'REST' ? 'files[]' : '0';
  const fields = transport === 'REST' ? '' : field('operations', UPLOAD_OPERATION) + field('map', '{"0":["variables.files.0"]}');
  return {
    path: transport === 'REST' ? '/api/v1/files' : '/graphql',
    head: Buffer.from(
      `${fields}--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${name}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    ok: transport === 'REST' ? 201 : 200,
  };
}

/** One upload with one file part, streamed with backpressure; resolves once it is stored, rejects otherwise. */
function uploadOne(target: LoadTarget, transport: Transport, size: number, name: string, agent: http.Agent): Promise<void> {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const { path, head, tail, ok } = form(transport, boundary, name);
  return new Promise((resolve, reject) => {
    const req = http.request(`${target.url}${path}`, {
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${target.token}`,
        'x-tenant': target.tenant,
        accept: 'application/json',
        'apollo-require-preflight': 'true',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (body += piece));
      // GraphQL answers 200 with `errors` when an operation fails.
      res.on('end', () =>
        res.statusCode === ok && !body.includes('"errors"') ? resolve() : reject(new Error(`upload ${name} answered ${res.statusCode}: ${body.slice(0, 300)}`)),
      );
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
function httpCase(target: LoadTarget, { name, size, count, concurrency, transport }: Extract<LoadCommand, { kind: 'http' }>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  return timed(async () => {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          await uploadOne(target, transport, size, label(name, next++), agent);
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
