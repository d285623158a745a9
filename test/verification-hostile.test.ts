import { jest } from '@jest/globals';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DocumentWorkers } from '../src/documents/index.js';
import {
  appendSignature,
  manyNamesPdf,
  certificateBombCms,
  laboriousPdf,
  signWith,
  strangerKey,
  tinyObjectsBomb,
  xrefSizeBomb,
} from './support/hostile-pdf.js';
import { issueFrom, verify } from './support/issued.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(120_000);

let service: TestService;
let api: ApiClient;
const stranger = strangerKey();

beforeAll(async () => {
  // The isolation test measures the event loop while a worker is busy, not the inspection time limit
  // (tested under "worker limits"): a loaded machine must not turn its laborious PDF into a timeout.
  service = await startTestService({ NOTIFICATION_WORKER: 'off', PDF_WORKERS: '2', PDF_INSPECT_TIMEOUT_MS: '30000' });
  api = await signIn(service, 'acme');
});
afterAll(() => service.stop());

async function multiPagePdf(pages: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) document.addPage([595, 842]).drawText(`Certificate page ${n}`, { x: 60, y: 700, size: 18, font });
  return document.save();
}

/** Sends `/healthz` one after another until `work` settles; returns how many answered meanwhile. */
async function healthChecksDuring(work: Promise<unknown>): Promise<number> {
  let settled = false;
  void work.finally(() => (settled = true));
  let answered = 0;
  while (!settled) {
    const response = await fetch(`${service.url}/healthz`);
    await response.arrayBuffer();
    if (!settled && response.status === 200) answered++;
  }
  return answered;
}

describe('a CPU bomb in the signature block', () => {
  it('1,000 RSA-3072 certificates with 3071-bit exponents, none named by the signer: invalid, and no key is tried', async () => {
    const bomb = appendSignature(Buffer.from('%PDF-1.7\n'), () => certificateBombCms(1000, false), 1000 * 1500);
    expect(bomb.length).toBeGreaterThan(2_500_000);
    const { status, body } = await verify(service.url, bomb);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      verdict: 'invalid',
      document_type: null,
      claimed_certificate_uuid: null,
      signatures: [expect.objectContaining({ intact: false })],
      certificate: null,
      anchor: null,
    });
  });

  it('a few certificates the signer does name, with exponents past 2^32: read, not tried, not ours', async () => {
    const bomb = appendSignature(Buffer.from('%PDF-1.7\n'), () => certificateBombCms(12, true), 12 * 1500);
    const { body } = await verify(service.url, bomb);
    expect(body.data).toMatchObject({
      verdict: 'not_issued_here',
      signatures: [{ intact: false, signed_by_issuer: false, signer_common_name: null }],
      certificate: null,
    });
  });
});

describe('memory bombs', () => {
  it('an XRef stream declaring /Size 2000000000 and 300,000 tiny objects are invalid, and issuing from a multi-page PDF still works', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const sizeBomb = appendSignature(xrefSizeBomb(), signWith(stranger));
    expect(sizeBomb.length).toBeLessThan(16 * 1024);
    const objectsBomb = appendSignature(tinyObjectsBomb(300, 1000), signWith(stranger));
    for (const bomb of [sizeBomb, objectsBomb]) {
      const { status, body } = await verify(service.url, bomb);
      expect(status).toBe(200);
      expect(body.data).toMatchObject({ verdict: 'invalid', signatures: [], certificate: null });
    }
    // The service runs in this process: whatever pdf-lib allocated for a bomb would show here.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);

    const { response, signed } = await issueFrom(api, await multiPagePdf(60));
    expect(response.status).toBe(201);
    expect((await verify(service.url, signed!)).body.data).toMatchObject({ verdict: 'authentic', document_type: 'certificate' });
  });

  it('refuses the same bombs as a tenant upload at issuance with a 422 naming the file', async () => {
    for (const bomb of [xrefSizeBomb(), tinyObjectsBomb(300, 1000)]) {
      const { response } = await issueFrom(api, bomb);
      expect(response.status).toBe(422);
      expect(response.body.errors.file_uuid).toEqual([expect.stringMatching(/^The PDF cannot be read: .*too many objects\.$/)]);
      expect(response.body.reason).toBe('PDF_UNREADABLE');
    }
  });
});

describe('isolation', () => {
  it('keeps the event loop free while a worker parses a laborious PDF', async () => {
    const laborious = appendSignature(laboriousPdf(10_000, 30), signWith(stranger));
    const verification = verify(service.url, laborious);
    const answered = await healthChecksDuring(verification);
    expect((await verification).body.data.verdict).toBe('not_issued_here');
    expect(answered).toBeGreaterThanOrEqual(10);
  });

  it('answers 413 for a verification body over VERIFY_MAX_BYTES', async () => {
    const small = await startTestService({ NOTIFICATION_WORKER: 'off', VERIFY_MAX_BYTES: '4096' });
    try {
      const pdf = Buffer.concat([await diplomaPdf('a certificate'), Buffer.alloc(4096, 0x20)]);
      expect((await verify(small.url, pdf)).status).toBe(413);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pdf)]), 'upload.pdf');
      expect((await fetch(`${small.url}/api/v1/verify`, { method: 'POST', body: form })).status).toBe(413);
      expect((await verify(small.url, Buffer.from('%PDF-1.7\n%%EOF\n'))).body.data.verdict).toBe('unsigned');
    } finally {
      await small.stop();
    }
  });
});

describe('worker limits', () => {
  const limits = { size: 1, jobTimeoutMs: 60_000, inspectTimeoutMs: 500, heapMb: 256, queueLimit: 0, maxJobsPerWorker: 100 };

  it('a job past the wall-clock limit loses its worker; the next job runs on a fresh one', async () => {
    const workers = new DocumentWorkers(limits);
    try {
      const laborious = appendSignature(laboriousPdf(20_000, 30), signWith(stranger));
      const unsigned = await diplomaPdf('unsigned');
      await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false, signatures: [] });
      expect(workers.size).toBe(1);
      await expect(workers.inspect(laborious)).resolves.toMatchObject({ refused: expect.stringMatching(/longer than 500 ms/) });
      expect(workers.size).toBe(0);
      await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false, signatures: [] });
      expect(workers.size).toBe(1);
    } finally {
      await workers.close();
    }
  });

  it('a job that exhausts its worker’s heap costs that worker only; the next job runs on a fresh one', async () => {
    const workers = new DocumentWorkers({ ...limits, inspectTimeoutMs: 120_000, heapMb: 24 });
    try {
      const unsigned = await diplomaPdf('unsigned');
      await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false });
      const laborious = appendSignature(laboriousPdf(20_000, 30), signWith(stranger));
      await expect(workers.inspect(laborious)).resolves.toMatchObject({ refused: expect.stringMatching(/within the limits/) });
      expect(workers.size).toBe(0);
      await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false });
    } finally {
      await workers.close();
    }
  });

  it('a worker that holds over half its heap after a job is replaced; healthy workers are kept', async () => {
    const workers = new DocumentWorkers({ ...limits, inspectTimeoutMs: 120_000, heapMb: 96 });
    try {
      const unsigned = await diplomaPdf('unsigned');
      for (let i = 0; i < 3; i++) await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false });
      expect(workers.size).toBe(1);
      // Signed, so the inspector parses the whole file with pdf-lib and every name stays interned.
      const names = appendSignature(manyNamesPdf(400_000), signWith(stranger));
      await expect(workers.inspect(names)).resolves.toMatchObject({ signed: true, signatures: [expect.objectContaining({ intact: true })] });
      expect(workers.size).toBe(0);
      await expect(workers.inspect(unsigned)).resolves.toMatchObject({ signed: false });
      expect(workers.size).toBe(1);
    } finally {
      await workers.close();
    }
  });

  it('over HTTP: the timed-out verification is invalid, a full pool answers 503 with Retry-After, then service resumes', async () => {
    const tight = await startTestService({ NOTIFICATION_WORKER: 'off', PDF_WORKERS: '1', PDF_INSPECT_TIMEOUT_MS: '500', PDF_QUEUE_LIMIT: '0' });
    try {
      const laborious = appendSignature(laboriousPdf(20_000, 30), signWith(stranger));
      const answers = await Promise.all([verify(tight.url, laborious), verify(tight.url, laborious), verify(tight.url, laborious)]);
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused[0].headers.get('retry-after')).toBe('2');
      expect(refused[0].body).toEqual({ message: expect.stringMatching(/try again/) });
      for (const answer of answers.filter((candidate) => candidate.status !== 503)) {
        expect(answer.body.data).toMatchObject({ verdict: 'invalid', certificate: null });
      }
      expect((await verify(tight.url, await diplomaPdf('unsigned'))).body.data.verdict).toBe('unsigned');
    } finally {
      await tight.stop();
    }
  });
});
