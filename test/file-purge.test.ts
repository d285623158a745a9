import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { factories } from './support/factories.js';
import { pdfBytes, upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

const GRACE_MS = 3_000;
const purgeEnv = { FILE_PURGE_GRACE_MS: String(GRACE_MS), FILE_PURGE_SWEEP_MS: '200' };

async function uploaded(api: ApiClient, bytes: Uint8Array, name = 'file.pdf'): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  expect(response.status).toBe(201);
  return response.body.data[0].uuid;
}

async function remove(api: ApiClient, uuid: string): Promise<void> {
  expect((await api.rest('DELETE', `/files/${uuid}`)).status).toBe(204);
}

async function chunkBytes(service: TestService, uuid: string): Promise<number> {
  const [row] = await service.orm.em.getConnection().execute('select coalesce(sum(length(data)), 0)::int as n from file_chunks where file_uuid = ?', [uuid]);
  return (row as { n: number }).n;
}

async function purged(service: TestService, uuid: string): Promise<boolean> {
  const [row] = await service.orm.em.getConnection().execute('select purged_at is not null as purged from files where uuid = ?', [uuid]);
  return (row as { purged: boolean }).purged;
}

describe('purging deleted files (PostgreSQL storage)', () => {
  let service: TestService;
  let acme: ApiClient;
  beforeAll(async () => {
    service = await startTestService(purgeEnv);
    acme = await signIn(service, 'acme');
  });
  afterAll(() => service.stop());

  it('removes the content of a deleted file no certificate and no live file needs, after the grace period only', async () => {
    const make = factories(acme);
    const institution = await make.institution();
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student();

    // Referenced: the source of a certificate that was issued, then revoked (which frees the file for deletion).
    const source = await uploaded(acme, await diplomaPdf(`Purge test ${randomUUID()}`), 'diploma.pdf');
    const issued = await acme.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      file_uuid: source,
      finish: true,
    });
    expect(issued.status).toBe(201);
    expect((await acme.rest('POST', `/certificates/${issued.body.data.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);

    // Shared: deleted, then the same bytes uploaded again as a new live file.
    const sharedBytes = pdfBytes(randomUUID(), 4_000);
    const sharedDeleted = await uploaded(acme, sharedBytes);
    await remove(acme, sharedDeleted);
    const sharedLive = await uploaded(acme, sharedBytes);
    expect(sharedLive).not.toBe(sharedDeleted);

    const unreferenced = await uploaded(acme, pdfBytes(randomUUID(), 5_000));
    const sourceBytes = await chunkBytes(service, source);
    await remove(acme, source);
    await remove(acme, unreferenced);
    // Within the grace period nothing is purged.
    expect(await chunkBytes(service, unreferenced)).toBe(5_000);

    await until(async () => (await chunkBytes(service, unreferenced)) === 0, 'the unreferenced file to be purged', 20_000);
    expect(await purged(service, unreferenced)).toBe(true);
    // The same sweeps saw the others past their grace period too, and kept them.
    expect(await chunkBytes(service, source)).toBe(sourceBytes);
    expect(await purged(service, source)).toBe(false);
    expect(await chunkBytes(service, sharedDeleted)).toBe(4_000);
    expect(await chunkBytes(service, sharedLive)).toBe(4_000);
    const download = await fetch(`${service.url}/api/v1/files/${sharedLive}/download`);
    expect(Buffer.from(await download.arrayBuffer()).equals(sharedBytes)).toBe(true);

    // Once no live file holds the content any more, it goes too.
    await remove(acme, sharedLive);
    await until(
      async () => (await chunkBytes(service, sharedDeleted)) + (await chunkBytes(service, sharedLive)) === 0,
      'the shared content to be purged',
      20_000,
    );
  });
});

describe('purging deleted files (filesystem storage)', () => {
  let service: TestService;
  let acme: ApiClient;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'credential-purge-'));
    service = await startTestService({ ...purgeEnv, FILE_STORAGE: 'filesystem', DATA_DIR: dataDir });
    acme = await signIn(service, 'acme');
  });
  afterAll(async () => {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const blobs = async () =>
    (await readdir(path.join(dataDir, 'files'), { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);

  it('removes the blob of a deleted file and keeps the live one', async () => {
    const live = await uploaded(acme, pdfBytes());
    const deleted = await uploaded(acme, pdfBytes());
    await remove(acme, deleted);
    await until(() => purged(service, deleted), 'the file to be purged', 20_000);
    expect(await blobs()).toEqual([live]);
  });
});
