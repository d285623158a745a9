import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { jest } from '@jest/globals';
import express from 'express';
import { DocumentWorkers } from '../src/documents/index.js';
import { rawUpload } from '../src/http/raw-upload.js';
import { diplomaPdf } from './support/pdf.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

describe('rawUpload, the public endpoints’ body reader', () => {
  let server: http.Server;
  let url: string;
  const seen: { bytes?: Buffer; error?: { status?: number; type?: string } }[] = [];
  beforeAll(async () => {
    const app = express();
    app.post('/upload', rawUpload({ type: 'application/pdf', limit: 1024 * 1024 }), (req, res) => {
      seen.push({ bytes: Buffer.isBuffer(req.body) ? req.body : undefined });
      res.status(204).end();
    });
    app.use((error: { status?: number; type?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      seen.push({ error: { status: error.status, type: error.type } });
      res.status(error.status ?? 500).end();
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (seen.length = 0));

  const post = (body: Buffer, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(body) });

  it('reads a body of known length intact, into memory of its own that a worker can take over', async () => {
    const body = randomBytes(300_000);
    expect((await post(body)).status).toBe(204);
    const { bytes } = seen[0]!;
    expect(bytes!.equals(body)).toBe(true);
    // All of its own memory: what a worker can take without a copy (src/documents/document-workers.ts, handedOver).
    expect(bytes!.byteOffset).toBe(0);
    expect(bytes!.buffer.byteLength).toBe(body.length);
  });

  it('leaves compressed and oversized bodies to express.raw, which inflates the one and refuses the other', async () => {
    const body = randomBytes(10_000);
    expect((await post(gzipSync(body), { 'content-encoding': 'gzip' })).status).toBe(204);
    expect(seen[0]!.bytes!.equals(body)).toBe(true);
    expect((await post(randomBytes(1024 * 1024 + 1))).status).toBe(413);
    expect(seen[1]!.error).toEqual({ status: 413, type: 'entity.too.large' });
  });

  it('answers a body cut short with request.aborted, not a partial buffer', async () => {
    await new Promise<void>((resolve) => {
      const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/pdf', 'content-length': '100000' } });
      request.on('error', () => resolve());
      request.write(randomBytes(50_000), () => setTimeout(() => request.destroy(), 50));
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual([{ error: { status: 400, type: 'request.aborted' } }]);
  });
});

describe('rawUpload’s reservations', () => {
  it('reserve at most `reservable` bytes for bodies still arriving; past that a body is read as express.raw reads it', async () => {
    const reader = rawUpload({ type: 'application/pdf', limit: 1024 * 1024, reservable: 150_000 });
    const bodies: Buffer[] = [];
    const app = express();
    app.post('/upload', reader, (req, res) => {
      bodies.push(req.body as Buffer);
      res.status(204).end();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
    // A body announced at 100,000 bytes whose first 10,000 are sent; the rest when `finish` is called.
    const slowly = () => {
      const body = randomBytes(100_000);
      const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/pdf', 'content-length': String(body.length) } });
      const answered = new Promise<number>((resolve) => {
        request.on('response', (response) => resolve(response.statusCode ?? 0));
        request.on('error', () => resolve(0));
      });
      request.write(body.subarray(0, 10_000));
      return { body, answered, finish: () => request.end(body.subarray(10_000)), abandon: () => request.destroy() };
    };
    try {
      const first = slowly();
      await until(async () => reader.reserved === 100_000, 'the first body to be reserved');
      const second = slowly();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reader.reserved).toBe(100_000);
      second.finish();
      expect(await second.answered).toBe(204);
      expect(bodies[0]!.equals(second.body)).toBe(true);
      first.abandon();
      await until(async () => reader.reserved === 0, 'the abandoned body’s reservation to be given back');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a PDF handed over to the inspecting worker', () => {
  const workers = new DocumentWorkers({ size: 1, jobTimeoutMs: 60_000, inspectTimeoutMs: 30_000, heapMb: 256, queueLimit: 2, maxJobsPerWorker: 100 });
  afterAll(() => workers.close());

  it('is moved, not copied, when it owns its memory; otherwise copied and left intact', async () => {
    const pdf = Buffer.from(await diplomaPdf('handed over'));
    const owned = Buffer.allocUnsafeSlow(pdf.length);
    pdf.copy(owned);
    await expect(workers.inspect(owned, undefined, { handOver: true })).resolves.toMatchObject({ signed: false, signatures: [] });
    expect(owned.byteLength).toBe(0);

    // A view of shared memory (here the middle of a larger buffer) cannot be handed over: it is copied.
    const shared = Buffer.concat([Buffer.alloc(16), pdf, Buffer.alloc(16)]).subarray(16, 16 + pdf.length);
    await expect(workers.inspect(shared, undefined, { handOver: true })).resolves.toMatchObject({ signed: false, signatures: [] });
    expect(shared.equals(pdf)).toBe(true);

    // Without handOver nothing is moved.
    const kept = Buffer.allocUnsafeSlow(pdf.length);
    pdf.copy(kept);
    await workers.inspect(kept);
    expect(kept.equals(pdf)).toBe(true);
  });
});
