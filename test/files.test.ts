import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { files } from '../src/files/file.service.js';
import { detectFileType } from '../src/files/file-type.js';
import { pdfBytes, pngBytes, sha256, svgBytes, upload, uploadForm, type Part } from './support/files.js';
import { PUBLIC_BASE_URL, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  service = await startTestService();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
});
afterAll(() => service.stop());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function sql<T = Record<string, any>>(target: TestService, query: string, params: unknown[] = []): Promise<T[]> {
  return target.orm.em.getConnection().execute(query, params);
}

async function rowsWithHash(target: TestService, bytes: Uint8Array): Promise<number> {
  const [row] = await sql(target, 'select count(*)::int as n from files where hash = ?', [sha256(bytes)]);
  return row!.n;
}

/** Chunks whose file record does not exist: what a rolled-back or deduplicated upload must not leave. */
async function orphanChunks(target: TestService): Promise<number> {
  const [row] = await sql(target, 'select count(*)::int as n from file_chunks c where not exists (select 1 from files f where f.uuid = c.file_uuid)');
  return row!.n;
}

/** What the file operations receive from a request of `identifier`: its tenant-scoped EntityManager and the file runtime. */
async function tenantContext(target: TestService, identifier: string) {
  const [tenant] = await sql<{ uuid: string }>(target, 'select uuid from tenants where identifier = ?', [identifier]);
  return { em: scopeToTenant(target.orm.em.fork(), tenant!.uuid), files: target.runtime.files };
}

async function uploaded(api: ApiClient, parts: Part[]) {
  const response = await upload(api, parts);
  expect(response.status).toBe(201);
  return response.body.data as Record<string, any>[];
}

/** A GraphQL multipart request (jaydenseric spec): `operations`, `map`, then one part per file. */
function graphqlUpload(api: ApiClient, parts: Part[], headers: Record<string, string> = { 'apollo-require-preflight': 'true' }) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: 'mutation($files: [Upload!]!) { uploadFiles(files: $files) { uuid originalName mimeType extension size usedAt file } }',
      variables: { files: parts.map(() => null) },
    }),
  );
  form.append('map', JSON.stringify(Object.fromEntries(parts.map((_, index) => [String(index), [`variables.files.${index}`]]))));
  parts.forEach(([content, filename], index) => form.append(String(index), new Blob([new Uint8Array(content)]), filename));
  return fetch(`${api.baseUrl}/graphql`, { method: 'POST', headers: api.headers(headers), body: form });
}

describe('uploading over REST', () => {
  it('stores several files from one multipart request and answers 201 with every file object', async () => {
    const [pdf, png, svg] = [pdfBytes(), pngBytes(), svgBytes()];
    const response = await upload(acme, [
      [pdf, 'Diploma.pdf'],
      [png, 'seal.png'],
      [svg, 'badge.svg'],
    ]);
    expect(response.status).toBe(201);
    const data = response.body.data;
    expect(data).toHaveLength(3);
    expect(data[0]).toEqual({
      uuid: expect.stringMatching(UUID),
      original_name: 'Diploma.pdf',
      mime_type: 'application/pdf',
      extension: 'pdf',
      size: pdf.length,
      used_at: null,
      file: `${PUBLIC_BASE_URL}/api/v1/files/${data[0].uuid}/download`,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(data.slice(1).map((file: any) => [file.original_name, file.mime_type, file.extension, file.size])).toEqual([
      ['seal.png', 'image/png', 'png', png.length],
      ['badge.svg', 'image/svg+xml', 'svg', svg.length],
    ]);
    const fetched = await acme.rest('GET', `/files/${data[1].uuid}`);
    expect(fetched.body).toEqual({ data: data[1] });
  });

  it('returns the existing record for content the tenant already has, without a duplicate', async () => {
    const pdf = pdfBytes();
    const [first] = await uploaded(acme, [[pdf, 'first.pdf']]);
    const [again, sameRequest] = await uploaded(acme, [
      [pdf, 'renamed copy.pdf'],
      [pdf, 'third.pdf'],
    ]);
    expect(again).toEqual(first);
    expect(sameRequest.uuid).toBe(first!.uuid);
    expect(await rowsWithHash(service, pdf)).toBe(1);
    expect(await orphanChunks(service)).toBe(0);
  });

  it('ends 8 concurrent uploads of the same bytes with exactly one record, returned to all of them', async () => {
    const pdf = pdfBytes(randomUUID(), 3 * 1024 * 1024);
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => upload(acme, [[pdf, `race-${index}.pdf`]])));
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(201));
    const uuids = new Set(responses.map((response) => response.body.data[0].uuid));
    expect(uuids.size).toBe(1);
    expect(await rowsWithHash(service, pdf)).toBe(1);
    const [chunks] = await sql(service, 'select count(*)::int as n, sum(length(data))::int as bytes from file_chunks where file_uuid = ?', [[...uuids][0]]);
    expect(chunks!.bytes).toBe(pdf.length);
    expect(await orphanChunks(service)).toBe(0);
  });

  it('stores 32 small files sent at once, none refused: uploads are counted by their bytes, not their number', async () => {
    const pdfs = Array.from({ length: 32 }, () => pdfBytes(randomUUID()));
    const responses = await Promise.all(pdfs.map((pdf, index) => upload(acme, [[pdf, `parallel-${index}.pdf`]])));
    expect(responses.map((response) => response.status)).toEqual(Array(32).fill(201));
  });

  it('queues uploads that do not fit the bytes in flight briefly, and stores them all once room frees', async () => {
    const pdfs = Array.from({ length: 32 }, () => pdfBytes(randomUUID(), 256 * 1024));
    // Room for about four of them at a time (32 × 256 KiB is 8 MiB): the others wait their turn instead of a 429.
    const budget = 4 * 260 * 1024;
    const narrow = await startTestService({ UPLOAD_BYTES_IN_FLIGHT_PER_TENANT: String(budget), UPLOAD_QUEUE_WAIT_MS: '20000' }, service.database);
    const [tenant] = await sql<{ uuid: string }>(service, 'select uuid from tenants where identifier = ?', ['acme']);
    const held = () => narrow.runtime.files.uploadBudget.heldBy(tenant!.uuid);
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, held())), 1);
    try {
      const api = await signIn(narrow, 'acme');
      const responses = await Promise.all(pdfs.map((pdf, index) => upload(api, [[pdf, `queued-${index}.pdf`]])));
      expect(responses.map((response) => response.status)).toEqual(Array(32).fill(201));
    } finally {
      clearInterval(watch);
      await narrow.stop();
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(budget);
    expect(held()).toBe(0);
  });

  it('never deduplicates across tenants: the same bytes make one record in each', async () => {
    const png = pngBytes();
    const [mine] = await uploaded(acme, [[png, 'a.png']]);
    const [theirs] = await uploaded(globex, [[png, 'b.png']]);
    expect(theirs!.uuid).not.toBe(mine!.uuid);
    expect(await rowsWithHash(service, png)).toBe(2);
    expect((await globex.rest('GET', `/files/${theirs!.uuid}`)).body.data.original_name).toBe('b.png');
  });

  it('keeps only the base name of a client path', async () => {
    const [file] = await uploaded(acme, [[pdfBytes(), 'C:\\fakepath\\Relatório final.pdf']]);
    expect(file!.original_name).toBe('Relatório final.pdf');
    const renamed = await acme.rest('PATCH', `/files/${file!.uuid}`, { original_name: '../etc/\u0007passwd.pdf' });
    expect(renamed.body.data.original_name).toBe('passwd.pdf');
  });

  it('answers 415 for content that is not PDF, PNG, SVG, JPEG or a font, whatever the name says, and keeps nothing of the request', async () => {
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const refused = await upload(acme, [[gif, 'photo.pdf']]);
    expect(refused.status).toBe(415);
    expect(refused.body).toEqual({ message: 'The file "photo.pdf" must be a file of type: pdf, png, svg, jpg, ttf, otf.' });

    const text = await upload(acme, [[Buffer.from('just some text, no svg here'), 'notes.svg']]);
    expect([text.status, text.body.message]).toEqual([415, 'The file "notes.svg" must be a file of type: pdf, png, svg, jpg, ttf, otf.']);

    const pdf = pdfBytes();
    const mixed = await upload(acme, [
      [pdf, 'fine.pdf'],
      [gif, 'photo.gif'],
    ]);
    expect(mixed.status).toBe(415);
    expect(await rowsWithHash(service, pdf)).toBe(0);
    expect(await orphanChunks(service)).toBe(0);
  });

  it('answers 422 when no file part is sent', async () => {
    const response = await acme.rest('POST', '/files', { files: [] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ message: 'The files field is required.', errors: { files: ['The files field is required.'] } });
  });

  it('stores a 20 MiB file (the default limit) intact', async () => {
    const big = pdfBytes(randomUUID(), 20 * 1024 * 1024);
    big.fill(0x61, 64, big.length - 64); // not one repeated byte: a shifted chunk would change the hash
    for (let at = 64; at < big.length - 64; at += 4093) big[at] = at & 0xff;
    const [file] = await uploaded(acme, [[big, 'big.pdf']]);
    expect(file!.size).toBe(big.length);
    const download = await fetch(file!.file.replace(PUBLIC_BASE_URL, service.url));
    const received = Buffer.from(await download.arrayBuffer());
    expect(received.length).toBe(big.length);
    expect(sha256(received)).toBe(sha256(big));
  });

  it('stores 20 files of one request intact, whether their bytes wait in memory, on disk or both', async () => {
    // Sizes around the 1 MiB a part keeps in memory (two 512 KiB chunks, stored by one statement); 20
    // such parts want more memory than the service lends, so the last ones go to disk from their first byte.
    const sizes = Array.from({ length: 20 }, (_, index) => [600 * 1024 + 7, 1024 * 1024, 1024 * 1024 + 1, 1536 * 1024 - 3][index % 4]! + index);
    const parts: Part[] = sizes.map((size, index) => {
      const bytes = pdfBytes(randomUUID(), size);
      for (let at = 64; at < bytes.length - 64; at += 4093) bytes[at] = (at + index) & 0xff;
      return [bytes, `part-${index}.pdf`];
    });
    const stored = await uploaded(acme, parts);
    for (const [index, file] of stored.entries()) {
      const download = await fetch(file.file.replace(PUBLIC_BASE_URL, service.url));
      const received = Buffer.from(await download.arrayBuffer());
      expect([file.size, received.length, sha256(received)]).toEqual([sizes[index], sizes[index], sha256(parts[index]![0])]);
    }
  });
});

describe('limits', () => {
  let small: TestService;
  let api: ApiClient;
  beforeAll(async () => {
    small = await startTestService({ UPLOAD_MAX_FILE_BYTES: '2048', UPLOAD_MAX_FILES: '2' });
    api = await signIn(small, 'acme');
  });
  afterAll(() => small.stop());

  async function nothingStored() {
    const [row] = await sql(small, 'select (select count(*) from files)::int as files, (select count(*) from file_chunks)::int as chunks');
    expect(row).toEqual({ files: 0, chunks: 0 });
  }

  it('answers 413 for a file over the size limit, and keeps none of the request', async () => {
    const response = await upload(api, [
      [pdfBytes(), 'ok.pdf'],
      [pdfBytes(randomUUID(), 2049), 'big.pdf'],
    ]);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'The file may not be greater than 2 kilobytes.' });
    await nothingStored();
    expect((await upload(api, [[pdfBytes(randomUUID(), 2048), 'exact.pdf']])).status).toBe(201);
    await sql(small, 'delete from file_chunks');
    await sql(small, 'delete from files');
  });

  it('answers 413 as soon as a large body crosses the limit, while the client is still sending', async () => {
    const response = await upload(api, [[pdfBytes(randomUUID(), 8 * 1024 * 1024), 'huge.pdf']]);
    expect([response.status, response.body]).toEqual([413, { message: 'The file may not be greater than 2 kilobytes.' }]);
    await nothingStored();
  });

  it('answers 413 for more files than allowed in one request', async () => {
    const response = await upload(api, [
      [pdfBytes(), '1.pdf'],
      [pdfBytes(), '2.pdf'],
      [pdfBytes(), '3.pdf'],
    ]);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'No more than 2 files may be uploaded at once.' });
    await nothingStored();
  });

  it('applies the same limits to GraphQL uploads', async () => {
    const tooMany = await graphqlUpload(api, [
      [pdfBytes(), '1.pdf'],
      [pdfBytes(), '2.pdf'],
      [pdfBytes(), '3.pdf'],
    ]);
    expect(tooMany.status).toBe(413);
    expect(await tooMany.json()).toEqual({ errors: [{ message: 'No more than 2 files may be uploaded at once.', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });

    const tooBig = await graphqlUpload(api, [
      [pdfBytes(), 'ok.pdf'],
      [pdfBytes(randomUUID(), 4096), 'big.pdf'],
    ]);
    // The whole request is read before any operation runs, so a file over the limit fails it as a 413, as on REST.
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toEqual({ errors: [{ message: 'The file may not be greater than 2 kilobytes.', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    await nothingStored();
  });
});

describe('downloading', () => {
  let file: Record<string, any>;
  const pdf = pdfBytes('download');
  beforeAll(async () => {
    [file] = (await uploaded(acme, [[pdf, 'draft.pdf']])) as [Record<string, any>];
    // Browsers and fetch escape `"` in multipart file names, so the quote arrives through a rename.
    await acme.rest('PATCH', `/files/${file.uuid}`, { original_name: 'Histórico "final" 100%.pdf' });
  });

  it('streams the content to anyone, without token or tenant, with type, length, name and ETag', async () => {
    expect(file.file).toBe(`${PUBLIC_BASE_URL}/api/v1/files/${file.uuid}/download`);
    const response = await fetch(`${service.url}/api/v1/files/${file.uuid}/download`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(pdf)).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-length')).toBe(String(pdf.length));
    expect(response.headers.get('etag')).toBe(`"${sha256(pdf)}"`);
    expect(response.headers.get('content-disposition')).toBe(
      `inline; filename="Historico _final_ 100_.pdf"; filename*=UTF-8''Hist%C3%B3rico%20%22final%22%20100%25.pdf`,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');

    const head = await fetch(`${service.url}/api/v1/files/${file.uuid}/download`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(pdf.length), '']);
  });

  it('answers 304 without a body when If-None-Match holds the ETag', async () => {
    const etag = `"${sha256(pdf)}"`;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await fetch(`${service.url}/api/v1/files/${file.uuid}/download`, { headers: { 'if-none-match': header } });
      expect([response.status, await response.text(), response.headers.get('etag')]).toEqual([304, '', etag]);
    }
    const stale = await fetch(`${service.url}/api/v1/files/${file.uuid}/download`, { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it('answers 404 JSON for unknown, malformed and deleted uuids', async () => {
    for (const uuid of [randomUUID(), 'not-a-uuid']) {
      const response = await fetch(`${service.url}/api/v1/files/${uuid}/download`);
      expect([response.status, await response.json()]).toEqual([404, { message: 'File not found.' }]);
    }
    const [gone] = await uploaded(acme, [[pdfBytes(), 'gone.pdf']]);
    expect((await acme.rest('DELETE', `/files/${gone!.uuid}`)).status).toBe(204);
    const response = await fetch(`${service.url}/api/v1/files/${gone!.uuid}/download`);
    expect([response.status, await response.json()]).toEqual([404, { message: 'File not found.' }]);
  });

  it('serves SVG with a sandboxing Content-Security-Policy', async () => {
    const [svg] = await uploaded(acme, [[svgBytes(), 'badge.svg']]);
    const response = await fetch(`${service.url}/api/v1/files/${svg!.uuid}/download`);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    await response.arrayBuffer();
  });
});

describe('metadata, lists and deletion', () => {
  it('PATCH and PUT change the original name only; PUT requires it', async () => {
    const [file] = await uploaded(acme, [[pdfBytes(), 'draft.pdf']]);
    const patched = await acme.rest('PATCH', `/files/${file!.uuid}`, { original_name: 'Final.pdf', mime_type: 'image/png', size: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ ...file, original_name: 'Final.pdf', updated_at: expect.stringMatching(TIMESTAMP) });

    const missing = await acme.rest('PUT', `/files/${file!.uuid}`, {});
    expect([missing.status, missing.body.errors]).toEqual([422, { original_name: ['The original name field is required.'] }]);
    const blank = await acme.rest('PATCH', `/files/${file!.uuid}`, { original_name: '  ' });
    expect([blank.status, blank.body.errors]).toEqual([422, { original_name: ['The original name field is required.'] }]);

    const replaced = await acme.rest('PUT', `/files/${file!.uuid}`, { original_name: 'Replaced.pdf' });
    expect(replaced.body.data.original_name).toBe('Replaced.pdf');
    const download = await fetch(`${service.url}/api/v1/files/${file!.uuid}/download`);
    expect(download.headers.get('content-disposition')).toContain('filename="Replaced.pdf"');
    await download.arrayBuffer();
  });

  it('lists with where[used_at]=null, where[mime_type], sorting and paging', async () => {
    const lister = await signIn(service, 'file-lister');
    const [a, b, c] = await uploaded(lister, [
      [pdfBytes('a', 300), 'a.pdf'],
      [pngBytes(), 'b.png'],
      [pdfBytes('c', 200), 'c.pdf'],
    ]);
    await files.take(await tenantContext(service, 'file-lister'), a!.uuid, randomUUID());

    const unused = await lister.rest('GET', '/files?where[used_at]=null&sort[column]=original_name');
    expect(unused.body.data.map((file: any) => file.original_name)).toEqual(['b.png', 'c.pdf']);
    const pdfs = await lister.rest('GET', '/files?where[mime_type]=application/pdf&sort[column]=size&sort[order]=desc');
    expect(pdfs.body.data.map((file: any) => [file.original_name, file.used_at === null])).toEqual([
      ['a.pdf', false],
      ['c.pdf', true],
    ]);
    const paged = await lister.rest('GET', '/files?sort[column]=original_name&per_page=2&page=2');
    expect(paged.body.data.map((file: any) => file.uuid)).toEqual([c!.uuid]);
    expect(paged.body.meta).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, total_is_estimate: false });

    const graphql = await lister.graphql('{ files(where: { usedAt: null }, sort: { column: original_name }) { totalCount nodes { uuid file } } }');
    expect(graphql.body.data.files).toEqual({
      totalCount: 2,
      nodes: [b, c].map((file) => ({ uuid: file!.uuid, file: file!.file })),
    });
  });

  it('soft-deletes an unused file (204), refuses a used one with 409 naming its certificate, and has no batch destroy', async () => {
    const [unused, used] = await uploaded(acme, [
      [pdfBytes(), 'unused.pdf'],
      [pdfBytes(), 'used.pdf'],
    ]);
    const deleted = await acme.rest('DELETE', `/files/${unused!.uuid}`);
    expect([deleted.status, deleted.body]).toEqual([204, '']);
    expect((await acme.rest('GET', `/files/${unused!.uuid}`)).body).toEqual({ message: 'File not found.' });
    const [row] = await sql(service, 'select deleted_at from files where uuid = ?', [unused!.uuid]);
    expect(row!.deleted_at).not.toBeNull();

    const certificate = randomUUID();
    const ctx = await tenantContext(service, 'acme');
    await files.take(ctx, used!.uuid, certificate);
    const refused = await acme.rest('DELETE', `/files/${used!.uuid}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      message: `The file ${used!.uuid} is used by certificate ${certificate} and cannot be deleted; delete or revoke that certificate first.`,
    });
    const graphql = await acme.graphql('mutation($uuid: ID!) { deleteFile(uuid: $uuid) }', { uuid: used!.uuid });
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await acme.rest('GET', `/files/${used!.uuid}`)).body.data.used_at).toMatch(TIMESTAMP);

    await files.release(ctx, used!.uuid);
    expect((await acme.rest('GET', `/files/${used!.uuid}`)).body.data.used_at).toBeNull();
    expect((await acme.rest('DELETE', `/files/${used!.uuid}`)).status).toBe(204);

    const batch = await acme.rest('DELETE', '/files/batch/destroy', { uuids: [used!.uuid] });
    expect([batch.status, batch.body]).toEqual([404, { message: 'Not found.' }]);
  });

  it('uploading content again after its record was deleted creates a new record', async () => {
    const pdf = pdfBytes();
    const [first] = await uploaded(acme, [[pdf, 'v1.pdf']]);
    await acme.rest('DELETE', `/files/${first!.uuid}`);
    const [second] = await uploaded(acme, [[pdf, 'v2.pdf']]);
    expect(second!.uuid).not.toBe(first!.uuid);
    expect(second!.original_name).toBe('v2.pdf');
  });
});

describe('use by certificates (take, release, storeGenerated)', () => {
  it('lets exactly one of concurrent takers have an unused PDF; the others get 422', async () => {
    const [file] = await uploaded(acme, [[pdfBytes(), 'contested.pdf']]);
    const takers = Array.from({ length: 6 }, () => randomUUID());
    const attempts = await Promise.allSettled(takers.map(async (taker) => files.take(await tenantContext(service, 'acme'), file!.uuid, taker)));
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    const winner = takers[attempts.findIndex((attempt) => attempt.status === 'fulfilled')];
    const failures = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(failures.map((failure) => [failure.reason.code, failure.reason.fieldErrors])).toEqual(
      Array(5).fill(['BAD_USER_INPUT', { fileUuid: [`The file uuid has already been used by certificate ${winner}.`] }]),
    );
  });

  it('refuses unknown, foreign and non-PDF files, and is idempotent for the holder', async () => {
    const ctx = await tenantContext(service, 'acme');
    await expect(files.take(ctx, randomUUID(), randomUUID())).rejects.toMatchObject({ fieldErrors: { fileUuid: ['The selected file uuid is invalid.'] } });
    const [foreign] = await uploaded(globex, [[pdfBytes(), 'theirs.pdf']]);
    await expect(files.take(ctx, foreign!.uuid, randomUUID())).rejects.toMatchObject({ fieldErrors: { fileUuid: ['The selected file uuid is invalid.'] } });
    const [png] = await uploaded(acme, [[pngBytes(), 'image.png']]);
    await expect(files.take(ctx, png!.uuid, randomUUID())).rejects.toMatchObject({ fieldErrors: { fileUuid: ['The file uuid must be a file of type: pdf.'] } });

    const [pdf] = await uploaded(acme, [[pdfBytes(), 'mine.pdf']]);
    const holder = randomUUID();
    await files.take(ctx, pdf!.uuid, holder);
    await files.take(ctx, pdf!.uuid, holder);
    await files.release(ctx, pdf!.uuid, randomUUID()); // not the holder: nothing changes
    expect((await acme.rest('GET', `/files/${pdf!.uuid}`)).body.data.used_at).toMatch(TIMESTAMP);
  });

  it('stores generated bytes inside the caller transaction: kept on commit, gone on rollback', async () => {
    const { em, files: runtime } = await tenantContext(service, 'acme');
    const kept = pdfBytes('signed');
    const second = pdfBytes('transcript');
    const [stored, other] = await em.transactional((tx) =>
      files.storeGenerated({ em: tx, files: runtime }, [
        { bytes: kept, originalName: 'signed.pdf', mimeType: 'application/pdf', usedByUuid: randomUUID() },
        { bytes: second, originalName: 'transcript.pdf', mimeType: 'application/pdf' },
      ]),
    );
    expect(stored).toMatchObject({ originalName: 'signed.pdf', mimeType: 'application/pdf', size: kept.length, usedAt: expect.any(Date) });
    expect(other).toMatchObject({ originalName: 'transcript.pdf', size: second.length, usedAt: null });
    const download = await fetch(`${service.url}/api/v1/files/${stored!.uuid}/download`);
    expect(Buffer.from(await download.arrayBuffer()).equals(kept)).toBe(true);

    const lost = pdfBytes('rolled back');
    await expect(
      em.transactional(async (tx) => {
        await files.storeGenerated({ em: tx, files: runtime }, [{ bytes: lost, originalName: 'lost.pdf', mimeType: 'application/pdf' }]);
        throw new Error('issuance failed');
      }),
    ).rejects.toThrow('issuance failed');
    expect(await rowsWithHash(service, lost)).toBe(0);
    expect(await orphanChunks(service)).toBe(0);
  });
});

describe('uploading over GraphQL', () => {
  it('uploadFiles takes a GraphQL multipart request with the preflight header', async () => {
    const [pdf, svg] = [pdfBytes(), svgBytes()];
    const response = await graphqlUpload(acme, [
      [pdf, 'one.pdf'],
      [svg, 'two.svg'],
    ]);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as any;
    expect(data.uploadFiles).toEqual([
      {
        uuid: expect.stringMatching(UUID),
        originalName: 'one.pdf',
        mimeType: 'application/pdf',
        extension: 'pdf',
        size: pdf.length,
        usedAt: null,
        file: expect.stringContaining('/download'),
      },
      {
        uuid: expect.stringMatching(UUID),
        originalName: 'two.svg',
        mimeType: 'image/svg+xml',
        extension: 'svg',
        size: svg.length,
        usedAt: null,
        file: expect.stringContaining('/download'),
      },
    ]);
    const [again] = await uploaded(acme, [[pdf, 'same.pdf']]);
    expect(again!.uuid).toBe(data.uploadFiles[0].uuid);
  });

  it('refuses a multipart request without the preflight header (CSRF prevention) and stores nothing', async () => {
    const pdf = pdfBytes();
    const response = await graphqlUpload(acme, [[pdf, 'csrf.pdf']], {});
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Cross-Site Request Forgery');
    expect(await rowsWithHash(service, pdf)).toBe(0);
  });

  it('reports unsupported content with UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await graphqlUpload(acme, [[Buffer.from('GIF89a........'), 'anim.gif']]);
    const body = (await response.json()) as any;
    expect(body.errors[0]).toMatchObject({
      message: 'The file "anim.gif" must be a file of type: pdf, png, svg, jpg, ttf, otf.',
      extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
  });

  it('needs a token like every operation', async () => {
    const form = uploadForm([[pdfBytes(), 'x.pdf']]);
    const response = await fetch(`${service.url}/graphql`, { method: 'POST', headers: { 'apollo-require-preflight': 'true', 'x-tenant': 'acme' }, body: form });
    expect(response.status).toBe(401);
    const rest = await fetch(`${service.url}/api/v1/files`, { method: 'POST', headers: { 'x-tenant': 'acme' }, body: uploadForm([[pdfBytes(), 'x.pdf']]) });
    expect([rest.status, await rest.json()]).toEqual([401, { message: 'Unauthenticated.' }]);
  });
});

describe('GraphQL multipart requests (the jaydenseric spec, read like REST forms)', () => {
  const UPLOAD_ONE = 'mutation($file: Upload!) { uploadFiles(files: [$file]) { uuid size file } }';
  type Field = [name: string, value: string | [content: Uint8Array, filename: string]];

  function send(fields: Field[]) {
    const form = new FormData();
    for (const [name, value] of fields) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([new Uint8Array(value[0])]), value[1]);
    }
    return fetch(`${acme.baseUrl}/graphql`, { method: 'POST', headers: acme.headers({ 'apollo-require-preflight': 'true' }), body: form });
  }
  const operations = (query = UPLOAD_ONE) => JSON.stringify({ query, variables: { file: null } });

  it('store a large file byte for byte, and ignore a part the map does not name', async () => {
    const big = pdfBytes(randomUUID(), 3_000_000);
    const response = await send([
      ['operations', operations()],
      ['map', JSON.stringify({ a: ['variables.file'] })],
      ['stray', [pdfBytes(), 'stray.pdf']],
      ['a', [big, 'big.pdf']],
    ]);
    expect(response.status).toBe(200);
    const [stored] = ((await response.json()) as any).data.uploadFiles;
    expect(stored.size).toBe(big.length);
    const download = await fetch(stored.file.replace(PUBLIC_BASE_URL, service.url));
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(big));
  });

  it('fail the operation when a file the map names never comes', async () => {
    const response = await send([
      ['operations', operations()],
      ['map', JSON.stringify({ a: ['variables.file'] })],
    ]);
    const body = (await response.json()) as any;
    expect(body.errors[0]).toMatchObject({ message: 'File missing in the request.', extensions: { code: 'BAD_REQUEST' } });
    expect(body.data).toBeNull();
  });

  it.each<[string, Field[], string]>([
    [
      'files before the map',
      [
        ['operations', operations()],
        ['a', [pdfBytes(), 'a.pdf']],
        ['map', '{"a":["variables.file"]}'],
      ],
      'files should follow ‘map’',
    ],
    [
      'the map before the operations',
      [
        ['map', '{"a":["variables.file"]}'],
        ['operations', operations()],
      ],
      '‘map’ should follow ‘operations’',
    ],
    [
      'operations that are not JSON',
      [
        ['operations', '{query'],
        ['map', '{}'],
      ],
      'Invalid JSON in the ‘operations’ multipart field',
    ],
    [
      'a map that is a list',
      [
        ['operations', operations()],
        ['map', '[]'],
      ],
      'Invalid type for the ‘map’ multipart field',
    ],
    [
      'a path to a value that is not null',
      [
        ['operations', operations()],
        ['map', '{"a":["query"]}'],
      ],
      'Invalid object path',
    ],
    [
      'a path through the prototype',
      [
        ['operations', operations()],
        ['map', '{"a":["__proto__.polluted"]}'],
      ],
      'Invalid object path',
    ],
    ['no map at all', [['operations', operations()]], 'Missing multipart field ‘map’'],
    [
      'operations nested 5,000 deep',
      [
        ['operations', `{"query":"{ __typename }","variables":{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}}`],
        ['map', '{}'],
      ],
      'nested deeper than',
    ],
  ])('answer 400 to %s, before any operation runs', async (_case, fields, message) => {
    const response = await send(fields);
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.errors[0].message).toContain(message);
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('tenant isolation', () => {
  it("one tenant's file is a 404 for another on GET, PATCH, PUT and DELETE, and absent from its lists", async () => {
    const [mine] = await uploaded(acme, [[pdfBytes(), 'acme-only.pdf']]);
    for (const [method, body] of [['GET'], ['PATCH', { original_name: 'x.pdf' }], ['PUT', { original_name: 'x.pdf' }], ['DELETE']] as const) {
      const response = await globex.rest(method, `/files/${mine!.uuid}`, body);
      expect([method, response.status, response.body]).toEqual([method, 404, { message: 'File not found.' }]);
    }
    const list = await globex.rest('GET', '/files?per_page=100');
    expect(list.body.data.map((file: any) => file.uuid)).not.toContain(mine!.uuid);
    const graphql = await globex.graphql('query($uuid: ID!) { file(uuid: $uuid) { uuid } }', { uuid: mine!.uuid });
    expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await acme.rest('GET', `/files/${mine!.uuid}`)).body.data.original_name).toBe('acme-only.pdf');
  });
});

describe('badge images', () => {
  it('badge_image_uuid must name a live PNG or SVG file of the tenant', async () => {
    const [pdf, png] = await uploaded(acme, [
      [pdfBytes(), 'doc.pdf'],
      [pngBytes(), 'badge.png'],
    ]);
    const [foreign] = await uploaded(globex, [[svgBytes(), 'theirs.svg']]);
    const attempt = (badge: string) =>
      acme.rest('POST', '/institutions', {
        name: 'Badged',
        country: 'BR',
        email: 'registrar@badged.example',
        is_badges_enabled: true,
        badge_image_uuid: badge,
      });

    expect((await attempt(pdf!.uuid)).body.errors).toEqual({ badge_image_uuid: ['The badge image uuid must be a file of type: png, svg.'] });
    expect((await attempt(foreign!.uuid)).body.errors).toEqual({ badge_image_uuid: ['The selected badge image uuid is invalid.'] });
    expect((await attempt('nope')).body.errors).toEqual({ badge_image_uuid: ['The selected badge image uuid is invalid.'] });
    const created = await attempt(png!.uuid);
    expect([created.status, created.body.data.badge_image_uuid]).toEqual([201, png!.uuid]);
  });
});

describe('filesystem storage', () => {
  let disk: TestService;
  let api: ApiClient;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'files-test-'));
    disk = await startTestService({ FILE_STORAGE: 'filesystem', DATA_DIR: dataDir });
    api = await signIn(disk, 'acme');
  });
  afterAll(async () => {
    await disk.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const blobs = async () =>
    (await readdir(path.join(dataDir, 'files'), { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);

  it('keeps content in files under DATA_DIR, served by the same download route', async () => {
    const pdf = pdfBytes(randomUUID(), 700 * 1024);
    const [file] = await uploaded(api, [[pdf, 'on-disk.pdf']]);
    expect(await blobs()).toEqual([file!.uuid]);
    expect(await sql(disk, 'select count(*)::int as n from file_chunks')).toEqual([{ n: 0 }]);
    const response = await fetch(`${disk.url}/api/v1/files/${file!.uuid}/download`);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(pdf));
  });

  it('removes what a failed request wrote, and the copy a duplicate upload wrote', async () => {
    const before = await blobs();
    expect(
      (
        await upload(api, [
          [pdfBytes(), 'a.pdf'],
          [Buffer.from('plain text'), 'b.txt'],
        ])
      ).status,
    ).toBe(415);
    const known = pdfBytes();
    await uploaded(api, [[known, 'first.pdf']]);
    await uploaded(api, [[known, 'again.pdf']]);
    expect((await blobs()).length).toBe(before.length + 1);
  });
});

describe('content detection', () => {
  const svg = (text: string) => detectFileType(Buffer.from(text))?.extension;

  it('recognises SVG after a BOM, XML declaration, comments and a doctype with an internal subset', () => {
    expect(
      svg(
        '\uFEFF  <?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" [ <!ENTITY x "y"> ]>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
      ),
    ).toBe('svg');
    expect(svg('<svg>')).toBe('svg');
    expect(svg('<svgx/>')).toBeUndefined();
    expect(svg('<html><svg/></html>')).toBeUndefined();
    expect(svg(`<!-- ${'x'.repeat(2000)} --><svg/>`)).toBeUndefined();
    expect(svg('')).toBeUndefined();
  });

  it('recognises PDF and PNG by their magic bytes only', () => {
    expect(detectFileType(Buffer.from('%PDF-1.4'))?.mimeType).toBe('application/pdf');
    expect(detectFileType(Buffer.from(' %PDF-1.4'))).toBeUndefined();
    expect(detectFileType(pngBytes())?.mimeType).toBe('image/png');
    expect(detectFileType(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
  });
});
