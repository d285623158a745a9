import { jest } from '@jest/globals';
import { IdempotencyStore } from '../src/idempotency/idempotency.repository.js';
import { factories, type Factories } from './support/factories.js';
import { pdfBytes, uploadPdf } from './support/files.js';
import { signIn, startTestService, type ApiClient, type ApiResponse, type TestService } from './support/service.js';

jest.setTimeout(60_000);

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;

beforeAll(async () => {
  service = await startTestService();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
});
afterAll(() => service.stop());

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;
const withKey = (key: string) => ({ 'idempotency-key': key });

/** A draft certificate's body over a fresh uploaded PDF. */
async function draftBody(): Promise<Record<string, unknown>> {
  const institution = await make.institution();
  const course = await make.course({ institution_uuid: institution.uuid });
  const student = await make.student();
  const file = await uploadPdf(acme);
  return { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.uuid };
}

async function certificatesUsing(fileUuid: unknown): Promise<string[]> {
  const listed = await acme.rest('GET', `/certificates?where[file_uuid]=${String(fileUuid)}`);
  expect(listed.status).toBe(200);
  return listed.body.data.map((row: { uuid: string }) => row.uuid);
}

async function graphql(api: ApiClient, query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<ApiResponse> {
  const response = await fetch(`${api.baseUrl}/graphql`, {
    method: 'POST',
    headers: api.headers({ 'content-type': 'application/json', ...headers }),
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

const CREATE_INSTITUTION = 'mutation($input: InstitutionInput!) { createInstitution(input: $input) { uuid name } }';

async function institutionsNamed(name: string): Promise<number> {
  const listed = await acme.rest('GET', `/institutions?where[name]=${encodeURIComponent(name)}`);
  return listed.body.meta.total;
}

describe('Idempotency-Key', () => {
  it('REST: a retry with the same key and body answers the first response again without creating twice', async () => {
    const body = await draftBody();
    const key = newKey();
    const first = await acme.rest('POST', '/certificates', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await acme.rest('POST', '/certificates', body, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await certificatesUsing(body.file_uuid)).toEqual([first.body.data.uuid]);
  });

  it('GraphQL: a mutation retried with the same key is answered from the first result', async () => {
    const key = newKey();
    const name = `Replayed ${key}`;
    const first = await graphql(acme, CREATE_INSTITUTION, { input: { name, country: 'BR' } }, withKey(key));
    expect(first.status).toBe(200);
    expect(first.body.data.createInstitution.name).toBe(name);
    const retry = await graphql(acme, CREATE_INSTITUTION, { input: { name, country: 'BR' } }, withKey(key));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await institutionsNamed(name)).toBe(1);
  });

  it('the same key on a different body, path or method is a 422 naming the reuse; nothing is done', async () => {
    const key = newKey();
    const name = `Original ${key}`;
    expect((await acme.rest('POST', '/institutions', { name, country: 'BR' }, withKey(key))).status).toBe(201);
    const changed = await acme.rest('POST', '/institutions', { name: `${name} changed`, country: 'BR' }, withKey(key));
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ reason: 'idempotency_key_reused', message: expect.stringContaining('different request') });
    expect(await institutionsNamed(`${name} changed`)).toBe(0);
    const otherStyle = await graphql(acme, CREATE_INSTITUTION, { input: { name, country: 'BR' } }, withKey(key));
    expect(otherStyle.status).toBe(422);
    expect(otherStyle.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'idempotency_key_reused' });
  });

  it('concurrent requests with one key: exactly one creates, the others get its answer or 409 idempotency_key_in_use', async () => {
    const body = await draftBody();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => acme.rest('POST', '/certificates', body, withKey(key))));
    const created = answers.filter((answer) => answer.status === 201);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(created.length + busy.length).toBe(6);
    expect(new Set(created.map((answer) => answer.body.data.uuid)).size).toBe(1);
    expect(created.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const answer of busy) {
      expect(answer.body).toMatchObject({ reason: 'idempotency_key_in_use' });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await certificatesUsing(body.file_uuid)).toEqual([created[0]!.body.data.uuid]);
  });

  it('after 24 hours the key is forgotten: the same request does the work again, and the sweeper deletes expired keys', async () => {
    const key = newKey();
    const name = `Expiring ${key}`;
    const first = await acme.rest('POST', '/institutions', { name, country: 'BR' }, withKey(key));
    const stored = () => service.orm.em.fork().getConnection().execute<{ n: string }[]>(`select count(*) as n from idempotency_keys where key = ?`, [key]);
    expect(Number((await stored())[0]!.n)).toBe(1);
    await service.orm.em.fork().getConnection().execute(`update idempotency_keys set expires_at = now() - interval '1 second' where key = ?`, [key], 'run');
    const later = await acme.rest('POST', '/institutions', { name, country: 'BR' }, withKey(key));
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.data.uuid).not.toBe(first.body.data.uuid);
    expect(await institutionsNamed(name)).toBe(2);

    await service.orm.em.fork().getConnection().execute(`update idempotency_keys set expires_at = now() - interval '1 second' where key = ?`, [key], 'run');
    expect(await new IdempotencyStore(service.orm).sweep()).toBeGreaterThanOrEqual(1);
    expect(Number((await stored())[0]!.n)).toBe(0);
  });

  it('keys belong to a tenant and client: another tenant using the same key gets its own work done', async () => {
    const key = newKey();
    const name = `Shared key ${key}`;
    const mine = await acme.rest('POST', '/institutions', { name, country: 'BR' }, withKey(key));
    const theirs = await globex.rest('POST', '/institutions', { name, country: 'BR' }, withKey(key));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.uuid).not.toBe(mine.body.data.uuid);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a control character', 'key\twith-tab'],
  ])('a key %s is a 400', async (_label, key) => {
    const refused = await acme.rest('POST', '/institutions', { name: 'Never', country: 'BR' }, withKey(key));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', reason: 'idempotency_key_invalid' });
  });

  it('multipart uploads refuse a key (they are deduplicated by content instead)', async () => {
    const form = new FormData();
    form.append('files[]', new Blob([new Uint8Array(pdfBytes())]), 'a.pdf');
    const refused = await acme.rest('POST', '/files', form, withKey(newKey()));
    expect(refused.status).toBe(400);
    expect(refused.body.reason).toBe('idempotency_key_unsupported');
  });

  it('reads are not covered: a GET with a key stores nothing', async () => {
    const key = newKey();
    const read = await acme.rest('GET', '/institutions', undefined, withKey(key));
    expect(read.status).toBe(200);
    const stored = await service.orm.em.fork().getConnection().execute<{ n: string }[]>(`select count(*) as n from idempotency_keys where key = ?`, [key]);
    expect(Number(stored[0]!.n)).toBe(0);
  });
});

describe('a file already used', () => {
  it('names the certificate using it, in the message and a field, in both styles; where[file_uuid] finds it', async () => {
    const body = await draftBody();
    const holder = await acme.rest('POST', '/certificates', body);
    expect(holder.status).toBe(201);
    const again = await acme.rest('POST', '/certificates', body);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({
      errors: { file_uuid: [`The file uuid has already been used by certificate ${holder.body.data.uuid}.`] },
      reason: 'FILE_ALREADY_USED',
      used_by_certificate_uuid: holder.body.data.uuid,
    });
    const { file_uuid, institution_uuid, course_uuid, student_uuid } = body;
    const input = { fileUuid: file_uuid, institutionUuid: institution_uuid, courseUuid: course_uuid, studentUuid: student_uuid };
    const viaGraphql = await acme.graphql('mutation($input: CertificateInput!) { createCertificate(input: $input) { uuid } }', { input });
    expect(viaGraphql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'FILE_ALREADY_USED',
      usedByCertificateUuid: holder.body.data.uuid,
    });

    const found = await acme.graphql('query($file: ID) { certificates(where: { fileUuid: $file }) { totalCount nodes { uuid } } }', { file: file_uuid });
    expect(found.body.data.certificates).toEqual({ totalCount: 1, nodes: [{ uuid: holder.body.data.uuid }] });
    expect(await certificatesUsing(file_uuid)).toEqual([holder.body.data.uuid]);
    expect((await globex.rest('GET', `/certificates?where[file_uuid]=${String(file_uuid)}`)).body.data).toEqual([]);
  });
});
