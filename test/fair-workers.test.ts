import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { FairQueue } from '../src/documents/fair-queue.js';
import { factories } from './support/factories.js';
import { pdfBytes, pngBytes, upload } from './support/files.js';
import { appendSignature, laboriousPdf, signWith, strangerKey } from './support/hostile-pdf.js';
import { verify } from './support/issued.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(180_000);

const stranger = strangerKey();

/** The nice value of one of this process's threads (field 19 of /proc/<pid>/task/<tid>/stat). */
function niceOf(threadId: number): number {
  const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

async function manyPagePdf(label: string, pages: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) document.addPage([595, 842]).drawText(`${label}, page ${n}`, { x: 60, y: 700, size: 18, font });
  return document.save();
}

/** An institution and course of the tenant, ready to issue certificates from. */
async function issuer(api: ApiClient) {
  const make = factories(api);
  const institution = await make.institution();
  const course = await make.course({ institution_uuid: institution.uuid });
  return { institution_uuid: institution.uuid, course_uuid: course.uuid };
}

describe('the fair queue', () => {
  it('serves lanes in turns, each lane in its own order, a new lane joining at the back of the round', () => {
    const queue = new FairQueue<string>();
    for (let n = 1; n <= 4; n++) queue.push('tenant-a', `a${n}`);
    queue.push('tenant-b', 'b1');
    expect(queue.shift()).toBe('a1');
    queue.push('tenant-c', 'c1');
    queue.push('tenant-b', 'b2');
    expect(queue.waiting('tenant-a')).toBe(3);
    const order: string[] = [];
    while (queue.size > 0) order.push(queue.shift()!);
    expect(order).toEqual(['b1', 'a2', 'c1', 'b2', 'a3', 'a4']);
    expect(queue.shift()).toBeUndefined();
  });

  it('drains every lane at once', () => {
    const queue = new FairQueue<number>();
    queue.push('x', 1);
    queue.push('y', 2);
    queue.push('x', 3);
    expect(queue.drain().sort()).toEqual([1, 2, 3]);
    expect(queue.size).toBe(0);
  });
});

describe('tenant work and public work', () => {
  let service: TestService;
  let acme: ApiClient;
  let globex: ApiClient;

  beforeAll(async () => {
    service = await startTestService({
      NOTIFICATION_WORKER: 'off',
      PDF_WORKERS: '1',
      PUBLIC_WORKERS: '1',
      PUBLIC_WORKER_NICE: '19',
      PDF_INSPECT_TIMEOUT_MS: '120000',
    });
    acme = await signIn(service, 'acme');
    globex = await signIn(service, 'globex');
  });
  afterAll(() => service.stop());

  it('run on separate pools, the public one at the lowest CPU priority', async () => {
    expect((await verify(service.url, await diplomaPdf('unsigned'))).body.data.verdict).toBe('unsigned');
    await factories(acme).certificate(await issuer(acme));
    const { tenantPool, publicPool } = service.runtime.documents;
    expect(publicPool.threadIds).toHaveLength(1);
    expect(tenantPool.threadIds).toHaveLength(1);
    expect(publicPool.threadIds.map(niceOf)).toEqual([19]);
    expect(tenantPool.threadIds.map(niceOf)).toEqual([0]);
  });

  it('an issuance does not wait for the public verifications queued before it', async () => {
    const ready = await issuer(acme);
    await factories(acme).certificate(ready);
    const laborious = appendSignature(laboriousPdf(30_000, 30), signWith(stranger));
    // Two: one on the public pool's one worker, one waiting behind it, queued before the issuance.
    const verifications = Array.from({ length: 2 }, () => verify(service.url, laborious));
    const { publicPool } = service.runtime.documents;
    await until(() => publicPool.queued >= 1, 'the public verifications to queue');
    const certificate = await factories(acme).certificate(ready);
    expect(certificate.status).toBe('issued');
    // Answered while the public pool still had verifications waiting for its one worker.
    expect(publicPool.queued).toBeGreaterThanOrEqual(1);
    for (const answer of await Promise.all(verifications)) expect(answer.body.data.verdict).toBe('not_issued_here');
  });

  it("a tenant's one issuance takes its turn among another tenant's many queued ones", async () => {
    const [acmeIssuer, globexIssuer] = [await issuer(acme), await issuer(globex)];
    // Signing identities are made at first use; make them before the race.
    await factories(acme).certificate(acmeIssuer);
    await factories(globex).certificate(globexIssuer);
    // Uploads first (a tenant's parallel uploads are capped), issuances all at once.
    // Long sources (500 pages), so signing one takes longer than the rest of its request.
    const drafts = async (api: ApiClient, fields: Record<string, string>, count: number) => {
      const bodies = [];
      for (let n = 0; n < count; n++) {
        const student = await factories(api).student();
        const file = await upload(api, [[await manyPagePdf(`Diploma ${Math.random()}`, 500), 'diploma.pdf']]);
        bodies.push({ ...fields, student_uuid: student.uuid, file_uuid: file.body.data[0].uuid, finish: true });
      }
      return bodies;
    };
    const [acmeBodies, [globexBody]] = [await drafts(acme, acmeIssuer, 8), await drafts(globex, globexIssuer, 1)];
    const finished: string[] = [];
    const issue = async (api: ApiClient, body: object, name: string) => {
      expect((await api.rest('POST', '/certificates', body)).status).toBe(201);
      finished.push(name);
    };
    const { tenantPool } = service.runtime.documents;
    const many = acmeBodies.map((body, n) => issue(acme, body, `acme-${n}`));
    await until(() => tenantPool.queued >= 6, "acme's issuances to queue", 90_000);
    const one = issue(globex, globexBody!, 'globex');
    await Promise.all([...many, one]);
    // First in, first out would put globex behind every acme issuance queued before it (at least 6 of
    // the 8), leaving at most 1 to finish after it; taking turns puts it next.
    expect(finished.length - 1 - finished.indexOf('globex')).toBeGreaterThanOrEqual(3);
  });
});

describe('public worker time per address', () => {
  let service: TestService;

  beforeAll(async () => {
    // A budget any verification exceeds, so the second request of an address finds it spent.
    service = await startTestService({ NOTIFICATION_WORKER: 'off', TRUST_PROXY: 'loopback', RATE_LIMIT_PUBLIC_WORKER_MS_PER_MINUTE: '1' });
  });
  afterAll(() => service.stop());

  const verifyFrom = async (address: string, pdf: Uint8Array) => {
    const response = await fetch(`${service.url}/api/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'x-forwarded-for': address },
      body: new Uint8Array(pdf),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
  };

  it('charges each job’s worker time to the address and refuses it with 429 once spent, other addresses unaffected', async () => {
    const pdf = await diplomaPdf('unsigned');
    expect((await verifyFrom('198.51.100.20', pdf)).body.data.verdict).toBe('unsigned');
    const [spent] = await service.orm.em
      .getConnection()
      .execute<{ hits: number }[]>(`select hits from rate_limit_buckets where key = ?`, ['worker-ms:address:198.51.100.20']);
    expect(spent!.hits).toBeGreaterThanOrEqual(1);

    const refused = await verifyFrom('198.51.100.20', pdf);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.body).toEqual({ message: expect.stringMatching(/processing time/) });
    // The same budget covers the other public routes that use workers.
    const unbake = await fetch(`${service.url}/api/v1/badges/unbake`, {
      method: 'POST',
      headers: { 'content-type': 'image/png', 'x-forwarded-for': '198.51.100.20' },
      body: new Uint8Array(pngBytes()),
    });
    expect(unbake.status).toBe(429);
    const image = await fetch(`${service.url}/ob/v2/assertions/${randomUUID()}/image.png`, { headers: { 'x-forwarded-for': '198.51.100.20' } });
    expect(image.status).toBe(429);

    expect((await verifyFrom('198.51.100.21', pdf)).status).toBe(200);
  });
});

describe('memory after a burst', () => {
  it('idle workers are retired, so their heaps go back to the system', async () => {
    const service = await startTestService({ NOTIFICATION_WORKER: 'off', PUBLIC_WORKERS: '2', WORKER_IDLE_MS: '2000' });
    try {
      // A burst of six for the two workers (2 MiB each: the retirement, not the size, is what is checked).
      const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => verify(service.url, pdfBytes(`large ${n}`, 2 * 1024 * 1024))));
      for (const answer of answers) expect(answer.body.data.verdict).toBe('unsigned');
      expect(service.runtime.documents.size).toBeGreaterThanOrEqual(1);
      await until(() => service.runtime.documents.size === 0, 'the idle workers to be retired', 20_000);
      // And the next job starts a fresh one.
      expect((await verify(service.url, await diplomaPdf('unsigned'))).body.data.verdict).toBe('unsigned');
      expect(service.runtime.documents.size).toBe(1);
    } finally {
      await service.stop();
    }
  });
});
