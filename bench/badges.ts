/**
 * Open Badges 2.0 public reads beside the public verification page (the baseline), in one run:
 * the hosted assertion (JSON-LD, salt read from the database) and the baked PNG (the badge image
 * read from storage, its chunks re-encoded with the assertion in an iTXt chunk) on every request.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import QRCode from 'qrcode';
import { measure, printTable, type BenchEnv, type Row } from './support.js';

async function post(env: BenchEnv, route: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${env.url}/api/v1${route}`, {
    method: 'POST',
    headers: { ...env.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${route} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: Record<string, any> }).data;
}

async function uploadFile(env: BenchEnv, bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append('files[]', new Blob([new Uint8Array(bytes)]), name);
  const response = await fetch(`${env.url}/api/v1/files`, { method: 'POST', headers: env.auth, body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { uuid: string }[] }).data[0]!.uuid;
}

/** An institution issuing badges (a real PNG badge image) and one certificate issued by it. */
async function issueBadged(env: BenchEnv): Promise<{ certificateUuid: string; imageBytes: number }> {
  const image = await QRCode.toBuffer('Bench University badge', { type: 'png', width: 512 });
  const badgeImage = await uploadFile(env, image, 'badge.png');
  const institution = await post(env, '/institutions', { name: 'Badge University', country: 'BR', is_badges_enabled: true, badge_image_uuid: badgeImage });
  const course = await post(env, '/courses', {
    name: 'Badged course',
    institution_uuid: institution.uuid,
    description: 'A course with a badge.',
    workload: 120,
  });
  const student = await post(env, '/students', { name: 'Badge Holder', email: 'holder@bench.test', date_of_birth: '2000-01-01' });
  const document = await PDFDocument.create();
  document.addPage([842, 595]).drawText('Certificate of completion', { x: 60, y: 300, size: 24, font: await document.embedFont(StandardFonts.Helvetica) });
  const file = await uploadFile(env, await document.save(), 'diploma.pdf');
  const certificate = await post(env, '/certificates', {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    file_uuid: file,
    finish: true,
  });
  return { certificateUuid: certificate.uuid as string, imageBytes: image.length };
}

export async function runBadgesBench(env: BenchEnv): Promise<Row[]> {
  console.log('\nbadges');
  const { certificateUuid, imageBytes } = await issueBadged(env);
  const assertion = `${env.url}/ob/v2/assertions/${certificateUuid}`;
  for (const url of [`${env.url}/verify/${certificateUuid}`, assertion, `${assertion}/image.png`]) {
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  }
  console.log(`  one issued certificate; badge image: ${imageBytes} bytes PNG`);
  const page = await measure(env, 'GET /verify/{uuid} (HTML page)', { url: `${env.url}/verify/${certificateUuid}` });
  const hosted = await measure(env, 'GET /ob/v2/assertions/{uuid}', { url: assertion, headers: { accept: 'application/ld+json' } });
  const baked = await measure(env, 'GET /ob/v2/assertions/{uuid}/image.png', { url: `${assertion}/image.png` });
  const rows = [page, hosted, baked];
  printTable('Open Badges public reads vs the verification page', rows, page);
  return rows;
}
