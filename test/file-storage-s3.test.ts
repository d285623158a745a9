import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { pdfBytes, sha256, upload } from './support/files.js';
import { PART_BYTES } from '../src/files/storage/s3-storage.js';
import { FlakyLink, startObjectStore, type TestObjectStore } from './support/s3.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(120_000);

let store: TestObjectStore;
let link: FlakyLink;
let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  store = await startObjectStore();
  link = await FlakyLink.open(store.endpoint);
  service = await startTestService({ FILE_STORAGE: 's3', ...store.env(link.endpoint), FILE_PURGE_GRACE_MS: '1000', FILE_PURGE_SWEEP_MS: '200' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(async () => {
  await service?.stop();
  await link?.close();
  await store?.stop();
});
afterEach(() => {
  link.heal();
  store.verifier.clockOffsetMs = 0;
  // Every request to the store went through the verifier of V4 signatures; a test that means one to be refused takes it.
  expect(store.verifier.takeRefusals()).toEqual([]);
});

async function sql<T = Record<string, any>>(target: TestService, query: string, params: unknown[] = []): Promise<T[]> {
  return target.orm.em.getConnection().execute(query, params);
}

async function uploaded(api: ApiClient, bytes: Uint8Array, name = 'file.pdf'): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  expect(response.status).toBe(201);
  return response.body.data[0].uuid;
}

async function tenantUuid(identifier: string): Promise<string> {
  const [row] = await sql<{ uuid: string }>(service, 'select uuid from tenants where identifier = ?', [identifier]);
  return row!.uuid;
}

async function downloaded(target: TestService, uuid: string): Promise<Buffer> {
  const response = await fetch(`${target.url}/api/v1/files/${uuid}/download`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** A PDF of `size` bytes whose content is unique and not compressible. */
function bigPdf(size: number): Buffer {
  const pdf = pdfBytes(randomUUID());
  return Buffer.concat([pdf, randomBytes(size - pdf.length)]);
}

describe('files in an S3-compatible store (s3rver)', () => {
  it('stores each upload as one object under the prefix and the tenant, streams it back, deduplicates per tenant', async () => {
    const verified = { ...store.verifier.verified };
    const { bodies, continued } = store.verifier;
    const small = pdfBytes(randomUUID(), 300 * 1024);
    // Over the part size (5 MiB): a multipart upload of two parts.
    const large = bigPdf(PART_BYTES + 123);
    const [smallUuid, largeUuid] = [await uploaded(acme, small), await uploaded(acme, large)];
    const [acmeTenant, globexTenant] = [await tenantUuid('acme'), await tenantUuid('globex')];
    const before = await store.keys();
    expect(before).toEqual(expect.arrayContaining([`test/${acmeTenant}/${smallUuid}`, `test/${acmeTenant}/${largeUuid}`]));
    expect(await sql(service, 'select storage from files where uuid in (?, ?)', [smallUuid, largeUuid])).toEqual([{ storage: 's3' }, { storage: 's3' }]);
    expect(await sql(service, 'select count(*)::int as n from file_chunks')).toEqual([{ n: 0 }]);

    expect(sha256(await downloaded(service, smallUuid))).toBe(sha256(small));
    expect(sha256(await downloaded(service, largeUuid))).toBe(sha256(large));

    // The same bytes again: the same record, no second object. Another tenant: its own record and object.
    expect(await uploaded(acme, small, 'again.pdf')).toBe(smallUuid);
    expect(await store.keys()).toEqual(before);
    const foreign = await uploaded(globex, small);
    expect(foreign).not.toBe(smallUuid);
    expect(await store.keys()).toEqual([...before, `test/${globexTenant}/${foreign}`].sort());

    // Each request of the service carried a V4 signature that verified: PUTs and parts with the body's
    // SHA-256 (compared with the bytes that came), GETs and DELETEs with the empty body's.
    expect(store.verifier.verified.sha256 - verified.sha256).toBeGreaterThanOrEqual(5);
    expect(store.verifier.verified.empty - verified.empty).toBeGreaterThanOrEqual(2);
    expect(store.verifier.bodies - bodies).toBeGreaterThanOrEqual(7);
    // The parts of the large file asked `Expect: 100-continue`: answered once their headers verified.
    expect(store.verifier.continued - continued).toBeGreaterThanOrEqual(1);
  });

  it('leaves no object behind for a request that fails, nor for a duplicate', async () => {
    const before = await store.keys();
    const refused = await upload(acme, [
      [pdfBytes(), 'a.pdf'],
      [Buffer.from('plain text'), 'b.txt'],
    ]);
    expect(refused.status).toBe(415);
    const bytes = pdfBytes();
    const first = await uploaded(acme, bytes);
    await uploaded(acme, bytes);
    const [tenant] = [await tenantUuid('acme')];
    expect(await store.keys()).toEqual([...before, `test/${tenant}/${first}`].sort());
  });

  it('when the store goes away in the middle of an upload: an error, no record, no object, and the next upload works', async () => {
    const before = await store.keys();
    // Cut in the second part of a multipart upload, the first already sent.
    const bytes = bigPdf(PART_BYTES + 2 * 1024 * 1024);
    link.breakAfter(PART_BYTES + 1024 * 1024);
    const failed = await upload(acme, [[bytes, 'cut.pdf']]);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(link.sent).toBeGreaterThan(PART_BYTES + 1024 * 1024);
    expect(await sql(service, 'select count(*)::int as n from files where hash = ?', [sha256(bytes)])).toEqual([{ n: 0 }]);
    link.heal();
    expect(await store.keys()).toEqual(before);

    const uuid = await uploaded(acme, bytes);
    expect(sha256(await downloaded(service, uuid))).toBe(sha256(bytes));
  });

  it('purges the object of a deleted file after the grace period', async () => {
    const tenant = await tenantUuid('acme');
    const kept = await uploaded(acme, pdfBytes());
    const deleted = await uploaded(acme, pdfBytes());
    expect((await acme.rest('DELETE', `/files/${deleted}`)).status).toBe(204);
    // The object goes inside the transaction that marks the record: both are seen once it commits.
    const purged = async () => (await sql(service, 'select purged_at is not null as purged from files where uuid = ?', [deleted]))[0]!.purged === true;
    await until(purged, 'the deleted file to be purged', 20_000);
    expect(await store.keys()).not.toContain(`test/${tenant}/${deleted}`);
    expect(await store.keys()).toContain(`test/${tenant}/${kept}`);
  });
});

describe('presigned downloads (S3_PRESIGNED_DOWNLOADS=true)', () => {
  let presigning: TestService;
  beforeAll(async () => {
    presigning = await startTestService({ FILE_STORAGE: 's3', ...store.env(), S3_PRESIGNED_DOWNLOADS: 'true' }, service.database);
  });
  afterAll(() => presigning?.stop());

  it('redirects to a short-lived signed URL of the store that serves the bytes with the name and type', async () => {
    const bytes = pdfBytes(randomUUID(), 50_000);
    const uuid = await uploaded(acme, bytes, 'Zeugnis Müller.pdf');
    const response = await fetch(`${presigning.url}/api/v1/files/${uuid}/download`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin).toBe(store.endpoint);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);

    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toBe('application/pdf');
    expect(direct.headers.get('content-disposition')).toBe(`inline; filename="Zeugnis Muller.pdf"; filename*=UTF-8''Zeugnis%20M%C3%BCller.pdf`);
    expect(sha256(Buffer.from(await direct.arrayBuffer()))).toBe(sha256(bytes));
    expect(store.verifier.takeRefusals()).toEqual([]);

    // The store checks the signature: one character changed, or the URL used after its 300 s, is refused.
    const signature = location.searchParams.get('X-Amz-Signature')!;
    const forged = new URL(location);
    forged.searchParams.set('X-Amz-Signature', signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0'));
    const refused = await fetch(forged);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    store.verifier.clockOffsetMs = 301_000;
    const late = await fetch(location);
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
    store.verifier.clockOffsetMs = 0;
    expect((await fetch(location)).status).toBe(200);
    expect(store.verifier.takeRefusals().map(({ method, code }) => [method, code])).toEqual([
      ['GET', 'SignatureDoesNotMatch'],
      ['GET', 'AccessDenied'],
    ]);

    // Revalidation still answers here, without a redirect; a file in the database streams as before.
    const etag = response.headers.get('etag')!;
    expect((await fetch(`${presigning.url}/api/v1/files/${uuid}/download`, { headers: { 'If-None-Match': etag }, redirect: 'manual' })).status).toBe(304);
  });
});

describe('a wrong S3_SECRET_ACCESS_KEY (the right key id)', () => {
  let wrong: TestService;
  beforeAll(async () => {
    wrong = await startTestService({ FILE_STORAGE: 's3', ...store.env(), S3_SECRET_ACCESS_KEY: 'not-the-secret' }, service.database);
  });
  afterAll(() => wrong?.stop());

  it('is refused by the store (403 SignatureDoesNotMatch): an upload fails with an error, no record, no object; a download fails', async () => {
    const before = await store.keys();
    const api = await signIn(wrong, 'acme');
    const bytes = pdfBytes(randomUUID());
    const failed = await upload(api, [[bytes, 'refused.pdf']]);
    expect(failed.status).toBe(500);
    // A storage failure is not classified: the service's answer to an internal error, in its error shape.
    expect(failed.body).toEqual({ message: 'Server Error' });
    // Over the part size: a multipart upload, refused at its start.
    const large = bigPdf(PART_BYTES + 1);
    const failedLarge = await upload(api, [[large, 'refused-large.pdf']]);
    expect([failedLarge.status, failedLarge.body]).toEqual([500, { message: 'Server Error' }]);
    expect(await sql(service, 'select count(*)::int as n from files where hash in (?, ?)', [sha256(bytes), sha256(large)])).toEqual([{ n: 0 }]);
    expect(await store.keys()).toEqual(before);

    const stored = await uploaded(acme, pdfBytes(randomUUID()));
    const download = await fetch(`${wrong.url}/api/v1/files/${stored}/download`);
    expect([download.status, await download.json()]).toEqual([500, { message: 'Server Error' }]);

    // The PUT, the POST starting the multipart upload, the GET, and the DELETEs of the failed uploads' keys.
    const refused = store.verifier.takeRefusals();
    expect(new Set(refused.map(({ status, code }) => `${status} ${code}`))).toEqual(new Set(['403 SignatureDoesNotMatch']));
    expect([...new Set(refused.map(({ method }) => method))].sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
  });
});

/** The built operator CLI on the service's database, as an operator runs it. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], {
    env: {
      PATH: process.env.PATH,
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      DATABASE_URL: service.database.url,
      DATABASE_MIGRATION_URL: service.database.ownerUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('files:migrate', () => {
  // Six CLI runs, each a process that loads the service's modules: minutes on a loaded machine.
  it('moves every file to s3 and back, resumable after a limit and after the store failing mid-way', async () => {
    // Files in PostgreSQL: a service of the same database with the default driver.
    const inDatabase = await startTestService({}, service.database);
    const api = await signIn(inDatabase, 'acme');
    // Moved in upload (uuid) order: the 6 MiB file last, after the limit and after some files of the second run.
    const contents = [...Array.from({ length: 5 }, () => pdfBytes(randomUUID(), 200_000)), bigPdf(6 * 1024 * 1024)];
    const uuids: string[] = [];
    for (const bytes of contents) uuids.push(await uploaded(api, bytes));
    await inDatabase.stop();
    const onS3 = async () =>
      (await sql<{ uuid: string }>(service, "select uuid from files where storage = 's3' and uuid in (?)", [uuids])).map((row) => row.uuid);
    const env = store.env(link.endpoint);
    const verified = store.verifier.total;

    const limited = await cli(['files:migrate', '--to', 's3', '--limit', '2'], env);
    expect([limited.code, limited.stderr]).toEqual([0, '']);
    expect(limited.stdout).toMatch(/^done: 2\/\d+ file\(s\) moved to s3/m);
    expect(await onS3()).toHaveLength(2);

    // The store goes away in the middle of the 6 MiB file.
    link.breakAfter(3 * 1024 * 1024);
    const cut = await cli(['files:migrate', '--to', 's3'], env);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^error: moving files stopped at file [0-9a-f-]{36}: .+; run files:migrate again to resume\n$/);
    link.heal();
    expect((await onS3()).sort()).toEqual(uuids.slice(0, 5).sort());

    const resumed = await cli(['files:migrate', '--to', 's3'], env);
    expect([resumed.code, resumed.stderr]).toEqual([0, '']);
    expect((await onS3()).sort()).toEqual([...uuids].sort());
    expect(await sql(service, 'select count(*)::int as n from file_chunks where file_uuid in (?)', [uuids])).toEqual([{ n: 0 }]);
    for (const [index, uuid] of uuids.entries()) expect(sha256(await downloaded(service, uuid))).toBe(sha256(contents[index]!));

    // And back: the objects leave the store, the content is served from PostgreSQL.
    const back = await cli(['files:migrate', '--to', 'postgres'], env);
    expect([back.code, back.stderr]).toEqual([0, '']);
    expect(await onS3()).toEqual([]);
    const keys = await store.keys();
    for (const uuid of uuids) expect(keys.some((key) => key.endsWith(uuid))).toBe(false);
    for (const [index, uuid] of uuids.entries()) expect(sha256(await downloaded(service, uuid))).toBe(sha256(contents[index]!));
    // The CLI's requests went through the verifier too (and none was refused: see afterEach).
    expect(store.verifier.total - verified).toBeGreaterThanOrEqual(3 * uuids.length);
  }, 400_000);

  it('refuses a driver that is not configured, in one line', async () => {
    const result = await cli(['files:migrate', '--to', 's3'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: files:migrate --to s3 needs S3_BUCKET (and the other S3_* settings)\n');
  });
});
