/** The usage docs/sdk.md shows: a token, one upload, one call that issues a certificate, and reading it back. */
import { connect, multipart } from './client.js';

export async function issueDiploma(pdf: Uint8Array<ArrayBuffer>): Promise<string | undefined> {
  const api = await connect({ baseUrl: 'https://credentials.example.org', tenant: 'acme', clientId: 'id', clientSecret: 'secret' });
  const files = await api.POST('/api/v1/files', { body: { 'files[]': [new File([pdf], 'diploma.pdf')] }, bodySerializer: multipart });
  const created = await api.POST('/api/v1/certificates', {
    body: {
      course_external_id: 'DATA-101',
      recipient: { email: 'ana@example.org', name: 'Ana Souza', date_of_birth: '1999-04-05' },
      file_uuid: files.data!.data[0]!.uuid,
      finish: true,
    },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  const { data } = await api.GET('/api/v1/certificates/{uuid}', { params: { path: { uuid: created.data!.data.uuid }, query: { includes: { student: '1' } } } });
  return data?.data?.public_verification_url ?? undefined;
}
