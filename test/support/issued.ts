import { factories } from './factories.js';
import { upload } from './files.js';
import type { ApiClient } from './service.js';

/** Issues a certificate from `sourcePdf` and returns it with its signed PDF as downloaded by the public. */
export async function issueFrom(api: ApiClient, sourcePdf: Uint8Array, studentName = 'Maria Oliveira') {
  const make = factories(api);
  const institution = await make.institution({ name: 'Instituto Federal' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering' });
  const student = await make.student({ name: studentName });
  const file = await upload(api, [[sourcePdf, 'diploma.pdf']]);
  if (file.status !== 201) throw new Error(`upload answered ${file.status}`);
  const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.body.data[0].uuid, finish: true };
  const response = await api.rest('POST', '/certificates', body);
  return { response, certificate: response.body.data, signed: response.status === 201 ? await signedPdfOf(api, response.body.data) : undefined };
}

async function signedPdfOf(api: ApiClient, certificate: { files: { type: string; uuid: string }[] }): Promise<Buffer> {
  const file = certificate.files.find((entry) => entry.type === 'certificate')!;
  const response = await fetch(`${api.baseUrl}/api/v1/files/${file.uuid}/download`);
  return Buffer.from(await response.arrayBuffer());
}

/** POST /api/v1/verify with the PDF as the raw body. */
export async function verify(baseUrl: string, pdf: Uint8Array): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${baseUrl}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}
