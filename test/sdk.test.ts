import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { SDK_TYPES_PATH, sdkTypes } from '../sdk/type-generation.js';
import { connect, multipart, type CredentialClient } from '../sdk/client.js';
import { diplomaPdf } from './support/pdf.js';
import { NO_BACKGROUND_WORK, provisionClient, startTestService, type TestService } from './support/service.js';

jest.setTimeout(120_000);

const root = fileURLToPath(new URL('..', import.meta.url));

let service: TestService;
let api: CredentialClient;

beforeAll(async () => {
  service = await startTestService(NO_BACKGROUND_WORK);
  const { clientId, clientSecret } = await provisionClient(service.orm, 'acme');
  api = await connect({ baseUrl: service.url, tenant: 'acme', clientId, clientSecret });
});
afterAll(() => service.stop());

describe('the typed SDK (sdk/)', () => {
  it('gets a token and issues a certificate to a new recipient in one call, then reads it back, all typed', async () => {
    const institution = await api.POST('/api/v1/institutions', { body: { name: 'Instituto SDK', country: 'BR' } });
    const courseExternalId = `sdk-${randomUUID()}`;
    const course = await api.POST('/api/v1/courses', {
      body: { institution_uuid: institution.data!.data.uuid, name: 'Typed Clients', external_id: courseExternalId },
    });
    expect(course.response.status).toBe(201);

    const pdf = (await diplomaPdf('SDK diploma')) as Uint8Array<ArrayBuffer>;
    const files = await api.POST('/api/v1/files', { body: { 'files[]': [new File([pdf], 'diploma.pdf')] }, bodySerializer: multipart });
    expect(files.response.status).toBe(201);
    expect(files.data!.data[0]).toMatchObject({ original_name: 'diploma.pdf', mime_type: 'application/pdf' });

    const email = `sdk-${randomUUID()}@example.org`;
    const key = randomUUID();
    const issue = () =>
      api.POST('/api/v1/certificates', {
        body: {
          course_external_id: courseExternalId,
          recipient: { email, name: 'Ana Tipada', date_of_birth: '1999-04-05', external_id: `sis-${key}` },
          file_uuid: files.data!.data[0]!.uuid,
          finish: true,
          notify: false,
        },
        headers: { 'Idempotency-Key': key },
      });
    const created = await issue();
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toMatch(new RegExp(`/api/v1/certificates/${created.data!.data.uuid}$`));
    expect(created.data!.data).toMatchObject({ status: 'issued', course: { name: 'Typed Clients' }, student: { name: 'Ana Tipada' } });
    const replay = await issue();
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.data.uuid).toBe(created.data!.data.uuid);

    const read = await api.GET('/api/v1/certificates/{uuid}', {
      params: { path: { uuid: created.data!.data.uuid }, query: { includes: { student: '1' } } },
    });
    expect(read.data!.data).toMatchObject({ uuid: created.data!.data.uuid, status: 'issued', student: { email, external_id: `sis-${key}` } });
  });

  it('answers a refused call with the typed Laravel-shaped error, and its types refuse what the API refuses', async () => {
    const refused = await api.POST('/api/v1/certificates', { body: { course_uuid: randomUUID(), student_uuid: randomUUID(), file_uuid: randomUUID() } });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({ message: expect.any(String), errors: expect.any(Object) });
    if (Date.now() < 0) {
      // @ts-expect-error: no such path
      await api.GET('/api/v1/certificate/{uuid}', { params: { path: { uuid: 'x' } } });
      // @ts-expect-error: finish is a boolean
      await api.POST('/api/v1/certificates', { body: { course_uuid: 'x', student_uuid: 'x', file_uuid: 'x', finish: 'yes' } });
    }
  });

  // Last: generating blocks the event loop for seconds, long enough to outlive the server's idle keep-alive sockets.
  it('has committed types equal to what `npm run sdk:generate` writes from the OpenAPI document the code builds', async () => {
    const committed = await readFile(`${root}${SDK_TYPES_PATH}`, 'utf8');
    expect(committed === (await sdkTypes())).toBe(true);
  });
});
