import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import busboy from 'busboy';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Upload } from 'graphql-upload-ts';
import { multipartBody } from '../rest-compat/multipart.js';
import { MultipartFlow } from '../src/http/multipart-flow.js';
import { DomainError, ERROR_STATUS } from '../src/errors/domain-error.js';
import { BlockPool } from '../src/files/block-pool.js';
import type { SpooledUpload } from '../src/files/file-spool.js';

/**
 * The REST multipart body (rest-compat/multipart.ts over src/http/multipart-form.ts and multipart-flow.ts) over real HTTP: whatever the
 * sizes and however the body arrives in pieces, every file part is stored byte for byte, and every
 * body chunk's memory is given back (its ArrayBuffer detached) by the time the request is answered.
 */
const MiB = 1024 * 1024;
const MAX_FILE_BYTES = 4 * MiB;
const blocks = new BlockPool(MiB, 4, 4);
/** Every body chunk the server received, seen by a listener of its own beside the parser's. */
const received: Buffer[] = [];
let server: http.Server;
let port: number;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function storedDigests(req: Request, res: Response): Promise<void> {
  const digests: string[] = [];
  for (const upload of (req.body.files ?? []) as Upload[]) {
    const { spool, filename } = (await upload.promise) as unknown as SpooledUpload;
    if (!spool.writableFinished) await new Promise((resolve) => spool.once('finish', resolve));
    const hash = createHash('sha256');
    for await (const block of spool.incoming(filename).content) hash.update(block);
    digests.push(hash.digest('hex'));
  }
  res.json({ digests, chunksStillHeld: received.filter((chunk) => !(chunk.buffer as ArrayBuffer).detached).length });
}

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    req.on('data', (chunk: Buffer) => received.push(chunk));
    next();
  });
  app.post('/files', multipartBody({ maxFileBytes: MAX_FILE_BYTES, maxFiles: 5, maxFieldBytes: 1024, blocks }), (req, res, next) => {
    storedDigests(req, res).catch(next);
  });
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(error instanceof DomainError ? ERROR_STATUS[error.code] : 500).json({ message: error.message });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function multipart(files: Buffer[]): { body: Buffer; type: string } {
  const boundary = `----flow${randomBytes(8).toString('hex')}`;
  const parts = files.flatMap((file, index) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="f${index}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file,
    Buffer.from('\r\n'),
  ]);
  return {
    body: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
      ...parts,
      Buffer.from(`--${boundary}--\r\n`),
    ]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

interface Answer {
  status: number;
  json: { digests?: string[]; chunksStillHeld?: number; message?: string };
}

/** Sends `body` in pieces of random sizes, honouring backpressure; `abortAfter` cuts the connection after that many bytes. */
function post(files: Buffer[], abortAfter?: number): Promise<Answer> {
  const { body, type } = multipart(files);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { port, host: '127.0.0.1', path: '/files', method: 'POST', headers: { 'content-type': type, 'content-length': body.length } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => (text += piece));
        response.on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(text) as Answer['json'] }));
      },
    );
    request.on('error', reject);
    let at = 0;
    const send = () => {
      while (at < body.length) {
        if (abortAfter !== undefined && at >= abortAfter) {
          request.destroy();
          return resolve({ status: 0, json: {} });
        }
        const piece = body.subarray(at, at + 1 + Math.floor(Math.random() * 300_000));
        at += piece.length;
        if (!request.write(piece)) return void request.once('drain', send);
      }
      request.end();
    };
    send();
  });
}

const SIZES = [0, 1, 100, 65_535, 65_536, 70_000, MiB - 1, MiB, MiB + 1, MiB + 300_000, 3_000_000, MAX_FILE_BYTES];

describe('multipart bodies on REST', () => {
  it('store every file byte for byte, several requests at once', async () => {
    let requests = 0;
    const client = async (seed: number) => {
      for (let round = 0; round < 8; round++) {
        const files = Array.from({ length: 1 + ((seed + round) % 3) }, (_, index) => randomBytes(SIZES[(seed * 5 + round * 3 + index * 7) % SIZES.length]!));
        received.length = 0;
        const answer = await post(files);
        expect(answer.status).toBe(200);
        expect(answer.json.digests).toEqual(files.map(sha256));
        requests++;
      }
    };
    await Promise.all([0, 1, 2, 3].map(client));
    expect(requests).toBe(32);
  });

  it('free each chunk of a lone upload, file parts and form fields alike', async () => {
    received.length = 0;
    const files = [randomBytes(3_000_000), randomBytes(70_000)];
    const answer = await post(files);
    expect(answer.json.digests).toEqual(files.map(sha256));
    expect(received.length).toBeGreaterThan(10);
    expect(answer.json.chunksStillHeld).toBe(0);
  });

  it('answer a file over the limit with 413 and keep serving', async () => {
    const tooLarge = await post([randomBytes(MAX_FILE_BYTES + 1)]);
    expect(tooLarge.status).toBe(413);
    const file = randomBytes(MiB + 5);
    expect((await post([file])).json.digests).toEqual([sha256(file)]);
  });

  it('survive clients that hang up halfway through a file', async () => {
    await Promise.all([post([randomBytes(3_000_000)], 1_500_000), post([randomBytes(MiB)], 200_000), post([randomBytes(100)], 50)]);
    const file = randomBytes(2 * MiB);
    expect((await post([file])).json.digests).toEqual([sha256(file)]);
  });

  it('go on when a part ends while its spool is still full', async () => {
    const files = [randomBytes(200_000), randomBytes(50_000)];
    const { body, type } = multipart(files);
    const request = new PassThrough();
    const parser = busboy({ headers: { 'content-type': type } });
    const flow = new MultipartFlow(request, parser);
    const stored: Buffer[][] = [];
    const written: Promise<unknown>[] = [];
    parser.on('file', (_field, part) => {
      const pieces: Buffer[] = [];
      stored.push(pieces);
      // A writer far slower than the body: full after its first slice, still busy when the part ends;
      // like a FileSpool, it stays open once finished (no 'close').
      const slow = new Writable({
        highWaterMark: 1024,
        autoDestroy: false,
        write(slice: Buffer, _encoding, done) {
          pieces.push(Buffer.from(slice));
          setTimeout(done, 2);
        },
      });
      written.push(new Promise((resolve) => slow.once('finish', resolve)));
      flow.feed(part, slow);
    });
    const closed = new Promise((resolve) => parser.once('close', resolve));
    flow.start();
    // One chunk, so every slice of it reaches the writers while the parser holds it; the body's end
    // comes later, when the request is paused for the first writer.
    request.write(body);
    setTimeout(() => request.end(), 20);
    await closed;
    await Promise.all(written);
    expect(stored.map((pieces) => sha256(Buffer.concat(pieces)))).toEqual(files.map(sha256));
    expect((body.buffer as ArrayBuffer).detached).toBe(true);
  });
});
