import { randomUUID } from 'node:crypto';
import { purgeDeletedFiles } from '../src/files/file-purge.js';
import { pdfBytes, upload } from './support/files.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

const QUOTA = 10_000;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ STORAGE_QUOTA_BYTES: String(QUOTA) });
});
afterAll(() => service.stop());

async function stored(tenant: string): Promise<{ files: number; bytes: number; chunkBytes: number }> {
  const [row] = await service.orm.em.getConnection().execute(
    `select count(*)::int as files, coalesce(sum(f.size), 0)::int as bytes,
       coalesce((select sum(length(c.data)) from file_chunks c join files g on g.uuid = c.file_uuid join tenants t on t.uuid = g.tenant_uuid where t.identifier = ?), 0)::int as "chunkBytes"
     from files f join tenants t on t.uuid = f.tenant_uuid where t.identifier = ? and f.deleted_at is null`,
    [tenant, tenant],
  );
  return row as { files: number; bytes: number; chunkBytes: number };
}

const message = (total: number) =>
  `The storage quota of this tenant (${QUOTA} bytes) would be exceeded: its files would take ${total} bytes. Deleted files count until their content is purged.`;

describe('storage quota', () => {
  let acme: ApiClient;
  beforeAll(async () => {
    acme = await signIn(service, 'acme');
  });

  it('refuses an upload that would take the tenant over its quota with 413, storing none of its files', async () => {
    expect((await upload(acme, [[pdfBytes(randomUUID(), 6_000), 'first.pdf']])).status).toBe(201);
    const over = await upload(acme, [
      [pdfBytes(randomUUID(), 1_000), 'fits.pdf'],
      [pdfBytes(randomUUID(), 4_000), 'does-not.pdf'],
    ]);
    expect([over.status, over.body]).toEqual([413, { message: message(11_000) }]);
    expect(await stored('acme')).toEqual({ files: 1, bytes: 6_000, chunkBytes: 6_000 });

    const graphql = new FormData();
    graphql.append(
      'operations',
      JSON.stringify({ query: 'mutation($files: [Upload!]!) { uploadFiles(files: $files) { uuid } }', variables: { files: [null] } }),
    );
    graphql.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
    graphql.append('0', new Blob([new Uint8Array(pdfBytes(randomUUID(), 5_000))]), 'graphql.pdf');
    const response = await fetch(`${acme.baseUrl}/graphql`, { method: 'POST', headers: acme.headers({ 'apollo-require-preflight': 'true' }), body: graphql });
    expect(((await response.json()) as any).errors).toEqual([expect.objectContaining({ message: message(11_000), extensions: { code: 'PAYLOAD_TOO_LARGE' } })]);
    expect(await stored('acme')).toEqual({ files: 1, bytes: 6_000, chunkBytes: 6_000 });
  });

  it('counts stored bytes: content already stored takes no room, and a deleted file counts until its content is purged', async () => {
    const [kept] = (await service.orm.em
      .getConnection()
      .execute("select f.uuid from files f join tenants t on t.uuid = f.tenant_uuid where t.identifier = 'acme' and f.deleted_at is null")) as {
      uuid: string;
    }[];
    const copy = await upload(acme, [[Buffer.from(await (await fetch(`${service.url}/api/v1/files/${kept!.uuid}/download`)).arrayBuffer()), 'same-bytes.pdf']]);
    expect([copy.status, copy.body.data[0].uuid]).toEqual([201, kept!.uuid]);
    expect((await acme.rest('DELETE', `/files/${kept!.uuid}`)).status).toBe(204);
    // Deleted, but its 6,000 bytes are still in storage: deleting and uploading again cannot pin more than the quota.
    const refused = await upload(acme, [[pdfBytes(randomUUID(), 9_000), 'not-yet.pdf']]);
    expect([refused.status, refused.body]).toEqual([413, { message: message(15_000) }]);
    expect(await purgeDeletedFiles(service.orm, service.runtime.files, 0)).toBe(1);
    expect((await upload(acme, [[pdfBytes(randomUUID(), 9_000), 'now-it-fits.pdf']])).status).toBe(201);
  });

  it('lets concurrent uploads at the edge of the quota store at most the quota', async () => {
    const edge = await signIn(service, 'edge');
    const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => upload(edge, [[pdfBytes(randomUUID(), 3_000), `edge-${index}.pdf`]])));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 413, 413, 413]);
    expect(await stored('edge')).toEqual({ files: 3, bytes: 9_000, chunkBytes: 9_000 });
  });

  it('counts each tenant alone', async () => {
    const globex = await signIn(service, 'globex');
    expect((await upload(globex, [[pdfBytes(randomUUID(), 9_500), 'globex.pdf']])).status).toBe(201);
  });
});
