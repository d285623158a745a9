import { jest } from '@jest/globals';
import { inspectSignedPdf } from '../src/documents/index.js';
import { factories, type Factories } from './support/factories.js';
import { upload } from './support/files.js';
import { TenantService } from '../src/tenants/tenant.service.js';
import { signIn, startTestService, PUBLIC_BASE_URL, type ApiClient, type TestService } from './support/service.js';
import { SmtpListener, header } from './support/smtp.js';
import { until } from './support/wait.js';
import { diplomaPdf, pdfText } from './support/pdf.js';

jest.setTimeout(60_000);

let smtp: SmtpListener;
let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;

beforeAll(async () => {
  smtp = await new SmtpListener().listen();
  service = await startTestService({ SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '100' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
});
afterAll(async () => {
  await service.stop();
  await smtp.close();
});

let pdfCounter = 0;
async function uploadSourcePdf(api: ApiClient = acme): Promise<string> {
  const response = await upload(api, [[await diplomaPdf(`Certificate of completion #${++pdfCounter}`), 'diploma.pdf']]);
  expect(response.status).toBe(201);
  return response.body.data[0].uuid;
}

/** A course with two grouped modules, a student with a completed enrollment, and an uploaded PDF. */
async function scenario(studentFields: Record<string, unknown> = {}) {
  const institution = await make.institution({ name: 'Instituto Federal' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', code: 'DE-1' });
  const group = await make.group(course.uuid, { name: 'Foundations', order: 1 });
  const modules = [
    await make.module({ institution_uuid: institution.uuid, name: 'Relational Databases', code: 'DB101', workload: 60, credits: 4 }),
    await make.module({ institution_uuid: institution.uuid, name: 'Stream Processing', code: 'SP201', workload: 40, credits: 3 }),
  ];
  await acme.rest('POST', `/courses/${course.uuid}/attach/modules`, {
    modules: modules.map((m) => ({ module_uuid: m.uuid, course_module_group_uuid: group.uuid })),
  });
  const student = await make.student({ name: 'Maria Oliveira', social_name: 'Mari Oliveira', ...studentFields });
  const enrollment = await make.enrollment({
    student_uuid: student.uuid,
    course_uuid: course.uuid,
    grade: 8.75,
    completion_status: 'completed',
    completed_at: '2026-06-30',
  });
  const fileUuid = await uploadSourcePdf();
  const body = {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    file_uuid: fileUuid,
    enrollment_uuid: enrollment.uuid,
  };
  return { institution, course, student, enrollment, fileUuid, body };
}

async function issued(fields: Record<string, unknown> = {}) {
  const world = await scenario();
  const response = await acme.rest('POST', '/certificates', { ...world.body, finish: true, ...fields });
  expect(response.status).toBe(201);
  return { ...world, certificate: response.body.data };
}

async function download(file: { uuid: string }): Promise<Buffer> {
  const response = await fetch(`${service.url}/api/v1/files/${file.uuid}/download`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** Flips one bit early in the file, inside the first signed byte range (not in the signature's own hole). */
function tamper(pdf: Buffer): Buffer {
  const copy = Buffer.from(pdf);
  copy[200] ^= 0x01;
  return copy;
}

const fileOf = (certificate: { files: { type: string; uuid: string }[] }, type: string) => certificate.files.find((file) => file.type === type)!;
const usedAt = async (uuid: string) => (await acme.rest('GET', `/files/${uuid}`)).body.data.used_at;

describe('drafts', () => {
  it('are saved only: draft status, no issuance date, the source file taken, a generated verification URL', async () => {
    const { body, fileUuid } = await scenario();
    const response = await acme.rest('POST', '/certificates', body);
    expect(response.status).toBe(201);
    const draft = response.body.data;
    expect(draft).toMatchObject({
      status: 'draft',
      issued_at: null,
      public_verification_url: `${PUBLIC_BASE_URL}/verify/${draft.uuid}`,
      student: { uuid: body.student_uuid, name: 'Mari Oliveira' },
      files: [{ type: 'source', uuid: fileUuid }],
    });
    expect(await usedAt(fileUuid)).not.toBeNull();
  });

  it('change with PATCH and PUT, and swapping the file releases the old one', async () => {
    const { body, fileUuid } = await scenario();
    const draft = (await acme.rest('POST', '/certificates', body)).body.data;
    const expiry = await acme.rest('PATCH', `/certificates/${draft.uuid}`, { expires_at: '2030-01-01' });
    expect(expiry.body.data).toMatchObject({ status: 'draft', expires_at: '2030-01-01T00:00:00.000000Z' });
    const newFile = await uploadSourcePdf();
    const replaced = await acme.rest('PUT', `/certificates/${draft.uuid}`, { ...body, file_uuid: newFile });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ expires_at: null, files: [{ type: 'source', uuid: newFile }] });
    expect(await usedAt(fileUuid)).toBeNull();
    expect(await usedAt(newFile)).not.toBeNull();
  });

  it('require every relation to exist in the tenant and agree with the others', async () => {
    const { body } = await scenario();
    const missing = await acme.rest('POST', '/certificates', {});
    // file_uuid is required unless the template draws the certificate: decided after the relations (templates-rendering.test.ts).
    // institution_uuid defaults to the course's institution (one-call issuance).
    expect(Object.keys(missing.body.errors).sort()).toEqual(['course_uuid', 'student_uuid']);

    const otherCourse = await make.course();
    const otherCohort = await make.cohort();
    const otherEnrollment = await make.enrollment();
    const response = await acme.rest('POST', '/certificates', {
      ...body,
      course_uuid: otherCourse.uuid,
      cohort_uuid: otherCohort.uuid,
      enrollment_uuid: otherEnrollment.uuid,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      course_uuid: ['The course does not belong to the institution.'],
      enrollment_uuid: ['The enrollment is not the student’s enrollment in the course.'],
      cohort_uuid: ['The cohort does not belong to the course.'],
    });
    const foreignStudent = await factories(globex).student();
    const foreign = await acme.rest('POST', '/certificates', { ...body, student_uuid: foreignStudent.uuid });
    expect(foreign.body.errors).toEqual({ student_uuid: ['The selected student uuid is invalid.'] });
    expect(await usedAt(body.file_uuid)).toBeNull();
  });

  it('get the institution’s default template when none is named', async () => {
    const { body, institution } = await scenario();
    await make.template({ institution_uuid: institution.uuid, name: 'Old' });
    const preferred = await make.template({ institution_uuid: institution.uuid, name: 'Preferred', is_default: true });
    const draft = (await acme.rest('POST', '/certificates', body)).body.data;
    expect(draft.template).toEqual({ uuid: preferred.uuid, name: 'Preferred', version: '1.0' });
    const foreignTemplate = await make.template();
    const refused = await acme.rest('POST', '/certificates', { ...body, file_uuid: await uploadSourcePdf(), template_uuid: foreignTemplate.uuid });
    expect(refused.body.errors).toEqual({ template_uuid: ['The template belongs to another institution.'] });
  });

  it('take a public verification URL only on this service or, over https, on a domain the operator allowed for the tenant', async () => {
    const { body } = await scenario();
    const offDomain = ['https://evil.example/phish', 'https://uni.example.evil.example/x', 'https://evil-uni.example/x'];
    const refusedBefore = await acme.rest('POST', '/certificates', { ...body, public_verification_url: offDomain[0] });
    expect(refusedBefore.status).toBe(422);
    expect(refusedBefore.body.errors).toEqual({
      public_verification_url: ['The public verification url must be on this service’s address or on a domain allowed for the tenant.'],
    });

    const draft = await acme.rest('POST', '/certificates', { ...body, public_verification_url: `${PUBLIC_BASE_URL}/verify/custom-path` });
    expect(draft.status).toBe(201);
    expect(draft.body.data.public_verification_url).toBe(`${PUBLIC_BASE_URL}/verify/custom-path`);

    await new TenantService(service.orm.em.fork()).setLinkHosts('acme', ['Uni.Example']);
    const allowed = await acme.rest('PATCH', `/certificates/${draft.body.data.uuid}`, { public_verification_url: 'https://certs.uni.example/c/1' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.public_verification_url).toBe('https://certs.uni.example/c/1');
    for (const url of offDomain) {
      const refused = await acme.rest('PATCH', `/certificates/${draft.body.data.uuid}`, { public_verification_url: url });
      expect([url, refused.status]).toEqual([url, 422]);
    }
    const plainHttp = await acme.rest('PATCH', `/certificates/${draft.body.data.uuid}`, { public_verification_url: 'http://uni.example/c/1' });
    expect(plainHttp.body.errors).toEqual({ public_verification_url: ['The public verification url must use https.'] });

    // The same rule in GraphQL, and the allow-list belongs to acme only.
    const mutation = 'mutation($uuid: ID!, $input: UpdateCertificateInput!) { updateCertificate(uuid: $uuid, input: $input) { uuid } }';
    const phish = await acme.graphql(mutation, { uuid: draft.body.data.uuid, input: { publicVerificationUrl: 'https://evil.example/phish' } });
    expect(phish.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { publicVerificationUrl: [expect.stringContaining('domain allowed for the tenant')] },
    });
    const other = factories(globex);
    const institution = await other.institution();
    const [course, student] = [await other.course({ institution_uuid: institution.uuid }), await other.student()];
    const globexBody = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: await uploadSourcePdf(globex) };
    const elsewhere = await globex.rest('POST', '/certificates', { ...globexBody, public_verification_url: 'https://certs.uni.example/c/2' });
    expect(elsewhere.status).toBe(422);
    expect(Object.keys(elsewhere.body.errors)).toEqual(['public_verification_url']);
  });
});

describe('the source file', () => {
  it('can be taken by exactly one of 10 concurrent creates', async () => {
    const { body } = await scenario();
    const responses = await Promise.all(Array.from({ length: 10 }, () => acme.rest('POST', '/certificates', body)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(422)]);
    const winner = responses.find((response) => response.status === 201)!.body.data.uuid;
    for (const refused of responses.filter((response) => response.status === 422)) {
      expect(refused.body.errors).toEqual({ file_uuid: [`The file uuid has already been used by certificate ${winner}.`] });
    }
    const list = await acme.rest('GET', `/certificates?where[student_uuid]=${body.student_uuid}`);
    expect(list.body.meta.total).toBe(1);
  });

  it('can be taken by exactly one of 6 concurrent issuances, whose documents are signed before their transactions', async () => {
    const { body } = await scenario();
    const responses = await Promise.all(Array.from({ length: 6 }, () => acme.rest('POST', '/certificates', { ...body, finish: true })));
    expect(responses.map((response) => response.status).sort()).toEqual([201, ...Array(5).fill(422)]);
    const winner = responses.find((response) => response.status === 201)!.body.data;
    expect(winner.files.map((file: { type: string }) => file.type)).toEqual(['source', 'certificate', 'transcript']);
    for (const refused of responses.filter((response) => response.status === 422)) {
      expect(refused.body.errors).toEqual({ file_uuid: [`The file uuid has already been used by certificate ${winner.uuid}.`] });
    }
    const list = await acme.rest('GET', `/certificates?where[student_uuid]=${body.student_uuid}`);
    expect(list.body.meta.total).toBe(1);
  });

  it('is refused when it is not a PDF, and a used file cannot be deleted', async () => {
    const { body, fileUuid } = await scenario();
    const image = (await upload(acme, [[Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]), 'badge.png']])).body.data[0].uuid;
    const refused = await acme.rest('POST', '/certificates', { ...body, file_uuid: image });
    expect(refused.body.errors).toEqual({ file_uuid: ['The file uuid must be a file of type: pdf.'] });
    const draft = (await acme.rest('POST', '/certificates', body)).body.data;
    const deleteFile = await acme.rest('DELETE', `/files/${fileUuid}`);
    expect(deleteFile.status).toBe(409);
    expect(deleteFile.body.message).toContain(draft.uuid);
  });
});

describe('issuance', () => {
  it('freezes the snapshot, signs the PDF and a generated transcript, and lists both files', async () => {
    const { certificate, student } = await issued();
    expect(certificate).toMatchObject({
      status: 'issued',
      issued_at: expect.stringMatching(/\.\d{6}Z$/),
      student: { uuid: student.uuid, name: 'Mari Oliveira' },
    });
    expect(certificate.files.map((file: { type: string }) => file.type)).toEqual(['source', 'certificate', 'transcript']);

    const signed = await download(fileOf(certificate, 'certificate'));
    const inspection = await inspectSignedPdf(signed);
    expect(inspection).toMatchObject({
      signed: true,
      intact: true,
      coversWholeFile: true,
      signerCommonName: 'Instituto Federal',
      credentialUuid: certificate.uuid,
    });
    expect((await inspectSignedPdf(tamper(signed))).intact).toBe(false);

    const transcript = await download(fileOf(certificate, 'transcript'));
    expect(await inspectSignedPdf(transcript)).toMatchObject({ signed: true, intact: true, credentialUuid: certificate.uuid });
    const text = await pdfText(transcript);
    for (const expected of [
      'Mari Oliveira',
      'Data Engineering',
      'Foundations',
      'Relational Databases',
      'Stream Processing',
      '8.75',
      '2026-06-30',
      certificate.uuid,
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('keeps the snapshot when the student is renamed or deleted afterwards', async () => {
    const { certificate, student } = await issued();
    await acme.rest('PATCH', `/students/${student.uuid}`, { name: 'Maria Renamed', social_name: null });
    const after = await acme.rest('GET', `/certificates/${certificate.uuid}?includes[student]=1`);
    expect(after.body.data.student).toMatchObject({ uuid: student.uuid, name: 'Maria Renamed' });
    const embedded = await acme.rest('GET', `/certificates/${certificate.uuid}`);
    expect(embedded.body.data.student).toEqual({ uuid: student.uuid, name: 'Mari Oliveira' });
    const graphql = await acme.graphql('query($uuid: ID!) { certificate(uuid: $uuid) { recipient { displayName name socialName email } } }', {
      uuid: certificate.uuid,
    });
    expect(graphql.body.data.certificate.recipient).toEqual({
      displayName: 'Mari Oliveira',
      name: 'Maria Oliveira',
      socialName: 'Mari Oliveira',
      email: student.email,
    });
    await acme.rest('DELETE', `/students/${student.uuid}`);
    await acme.rest('DELETE', `/institutions/${certificate.institution.uuid}`);
    const stillThere = await acme.rest('GET', `/certificates/${certificate.uuid}`);
    expect(stillThere.body.data).toMatchObject({ status: 'issued', student: { name: 'Mari Oliveira' }, institution: { name: 'Instituto Federal' } });
  });

  it('emails the student exactly once', async () => {
    const { certificate, student } = await issued();
    await until(() => smtp.to(student.email).length > 0, 'the notification');
    await issued(); // a later issuance; its mail arriving shows the worker moved on past ours
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mails = smtp.to(student.email);
    expect(mails).toHaveLength(1);
    expect(header(mails[0]!.raw, 'Subject')).toBe('Your certificate for Data Engineering from Instituto Federal');
    expect(mails[0]!.raw).toContain(certificate.public_verification_url);
  });

  it('issues a draft once when two requests issue it at the same time: the other answers 409', async () => {
    const { body } = await scenario();
    const draft = (await acme.rest('POST', '/certificates', body)).body.data;
    const responses = await Promise.all([
      acme.rest('POST', `/certificates/${draft.uuid}/issue`),
      acme.rest('PATCH', `/certificates/${draft.uuid}`, { finish: true }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    const read = await acme.rest('GET', `/certificates/${draft.uuid}?includes[files]=1`);
    expect(read.body.data.status).toBe('issued');
    expect(read.body.data.files.map((file: { type: string }) => file.type)).toEqual(['source', 'certificate', 'transcript']);
  });

  it('names every unknown party of a draft at once', async () => {
    const { body } = await scenario();
    const unknown = '01900000-0000-7000-8000-000000000000';
    const refused = await acme.rest('POST', '/certificates', { ...body, course_uuid: unknown, student_uuid: unknown, finish: true });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ course_uuid: ['The selected course uuid is invalid.'], student_uuid: ['The selected student uuid is invalid.'] });
  });

  it('issues a draft through PATCH finish, issueCertificate, or POST /issue — and only once', async () => {
    const viaPatch = (await acme.rest('POST', '/certificates', (await scenario()).body)).body.data;
    expect((await acme.rest('PATCH', `/certificates/${viaPatch.uuid}`, { finish: true })).body.data.status).toBe('issued');
    const viaGraphql = (await acme.rest('POST', '/certificates', (await scenario()).body)).body.data;
    const graphql = await acme.graphql('mutation($uuid: ID!) { issueCertificate(uuid: $uuid) { status files { type } } }', { uuid: viaGraphql.uuid });
    expect(graphql.body.data.issueCertificate).toEqual({ status: 'issued', files: [{ type: 'source' }, { type: 'certificate' }, { type: 'transcript' }] });
    const again = await acme.rest('POST', `/certificates/${viaGraphql.uuid}/issue`);
    expect([again.status, again.body.message]).toEqual([409, 'The certificate is issued; only drafts can be changed.']);
  });

  it('rolls everything back when the source PDF cannot be signed', async () => {
    const { body } = await scenario();
    const broken = (await upload(acme, [[Buffer.from('%PDF-1.7\nnot really a pdf\n%%EOF\n'), 'broken.pdf']])).body.data[0].uuid;
    const response = await acme.rest('POST', '/certificates', { ...body, file_uuid: broken, finish: true });
    expect(response.status).toBe(422);
    expect(response.body.errors.file_uuid[0]).toMatch(/PDF/);
    expect(await usedAt(broken)).toBeNull();
    expect((await acme.rest('GET', `/certificates?where[student_uuid]=${body.student_uuid}`)).body.meta.total).toBe(0);
  });
});

describe('issued certificates', () => {
  it('are immutable: PATCH and PUT are 409', async () => {
    const { certificate, body } = await issued();
    expect((await acme.rest('PATCH', `/certificates/${certificate.uuid}`, { expires_at: '2031-01-01' })).status).toBe(409);
    expect((await acme.rest('PUT', `/certificates/${certificate.uuid}`, body)).status).toBe(409);
  });

  it('revoke with a reason, releasing the source file; only issued ones can be revoked', async () => {
    const { certificate, fileUuid } = await issued();
    const noReason = await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: '  ' });
    expect([noReason.status, noReason.body.errors]).toEqual([422, { reason: ['The reason field is required.'] }]);
    const revoked = await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' });
    expect(revoked.body.data).toMatchObject({ status: 'revoked', revocation_reason: 'Issued in error', revoked_at: expect.stringMatching(/Z$/) });
    expect(await usedAt(fileUuid)).toBeNull();
    const twice = await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'again' });
    expect(twice.status).toBe(409);
    const draft = (await acme.rest('POST', '/certificates', (await scenario()).body)).body.data;
    const graphql = await acme.graphql('mutation($uuid: ID!) { revokeCertificate(uuid: $uuid, reason: "x") { status } }', { uuid: draft.uuid });
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('read as expired past their expiry, are swept to expired, and cannot be revoked then', async () => {
    const { certificate } = await issued({ expires_at: '2030-01-01' });
    await service.orm.em.getConnection().execute(`update certificates set expires_at = now() - interval '1 minute' where uuid = ?`, [certificate.uuid]);
    expect((await acme.rest('GET', `/certificates/${certificate.uuid}`)).body.data.status).toBe('expired');
    expect((await acme.rest('GET', `/certificates?where[status]=expired&where[student_uuid]=${certificate.student.uuid}`)).body.meta.total).toBe(1);
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'late' })).status).toBe(409);
    const { certificates } = await import('../src/certificates/certificate.service.js');
    expect(await certificates.expireOverdue({ em: service.orm.em.fork() })).toBeGreaterThanOrEqual(1);
    const [row] = await service.orm.em.getConnection().execute('select status from certificates where uuid = ?', [certificate.uuid]);
    expect(row.status).toBe('expired');
    expect(((await (await fetch(`${service.url}/api/v1/verify/${certificate.uuid}`)).json()) as any).data).toMatchObject({ status: 'expired', valid: false });
  });

  it('deleting a certificate frees its source file', async () => {
    const { certificate, fileUuid } = await issued();
    expect((await acme.rest('DELETE', `/certificates/${certificate.uuid}`)).status).toBe(204);
    expect(await usedAt(fileUuid)).toBeNull();
    expect((await fetch(`${service.url}/api/v1/verify/${certificate.uuid}`)).status).toBe(410);
  });

  it('include full related records on request', async () => {
    const { certificate, student } = await issued();
    const response = await acme.rest(
      'GET',
      `/certificates/${certificate.uuid}?includes[student]=1&includes[course]=1&includes[institution]=1&includes[files]=1`,
    );
    const data = response.body.data;
    expect(data.student).toMatchObject({ uuid: student.uuid, email: student.email, date_of_birth: '2001-02-03' });
    expect(data.course).toMatchObject({ name: 'Data Engineering', code: 'DE-1', workload: null });
    expect(data.institution).toMatchObject({ name: 'Instituto Federal', country: 'BR' });
    expect(data.files[1]).toMatchObject({
      type: 'certificate',
      mime_type: 'application/pdf',
      extension: 'pdf',
      file: `${PUBLIC_BASE_URL}/api/v1/files/${data.files[1].uuid}/download`,
    });
  });

  it('are invisible to another tenant', async () => {
    const { certificate } = await issued();
    expect((await globex.rest('GET', `/certificates/${certificate.uuid}`)).status).toBe(404);
    expect((await globex.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'x' })).status).toBe(404);
    expect((await globex.rest('DELETE', `/certificates/${certificate.uuid}`)).status).toBe(404);
    expect((await globex.rest('GET', '/certificates')).body.meta.total).toBe(0);
  });
});

describe('public verification', () => {
  it('shows an issued certificate as a page and as JSON, without a token', async () => {
    const { certificate } = await issued();
    const page = await fetch(`${service.url}/verify/${certificate.uuid}`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    for (const expected of ['Valid', 'Mari Oliveira', 'Data Engineering', 'Instituto Federal', 'Signed certificate', 'Signed transcript'])
      expect(html).toContain(expected);
    const json = (await (await fetch(`${service.url}/api/v1/verify/${certificate.uuid}`)).json()) as any;
    expect(json.data).toMatchObject({
      uuid: certificate.uuid,
      status: 'valid',
      valid: true,
      recipient_name: 'Mari Oliveira',
      course: 'Data Engineering',
      institution: 'Instituto Federal',
    });
    expect(json.data.documents.map((doc: { type: string }) => doc.type)).toEqual(['certificate', 'transcript']);
  });

  it('shows revocation with its reason and date', async () => {
    const { certificate } = await issued();
    await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Academic misconduct' });
    const html = await (await fetch(`${service.url}/verify/${certificate.uuid}`)).text();
    expect(html).toContain('Revoked');
    expect(html).toContain('Academic misconduct');
  });

  it('does not exist for drafts, deleted or unknown certificates', async () => {
    const draft = (await acme.rest('POST', '/certificates', (await scenario()).body)).body.data;
    for (const uuid of [draft.uuid, '01a1fbd9-0000-7000-8000-000000000000', 'nonsense']) {
      expect((await fetch(`${service.url}/verify/${uuid}`)).status).toBe(404);
      expect((await fetch(`${service.url}/api/v1/verify/${uuid}`)).status).toBe(404);
    }
  });

  it('checks an uploaded PDF: ours and intact, tampered, or not signed at all', async () => {
    const { certificate } = await issued();
    const signed = await download(fileOf(certificate, 'certificate'));
    const check = async (bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'upload.pdf');
      const response = await fetch(`${service.url}/api/v1/verify`, { method: 'POST', body: form });
      expect(response.status).toBe(200);
      return ((await response.json()) as any).data;
    };
    expect(await check(signed)).toMatchObject({
      verdict: 'authentic',
      document_type: 'certificate',
      claimed_certificate_uuid: certificate.uuid,
      signatures: [{ intact: true, covers_whole_file: true, signed_by_issuer: true, signer_common_name: 'Instituto Federal' }],
      certificate: { uuid: certificate.uuid, status: 'valid' },
    });
    // The flipped byte is covered: the institution's signature still verifies, over other bytes.
    expect(await check(tamper(signed))).toMatchObject({
      verdict: 'modified_after_signing',
      document_type: null,
      signatures: [{ intact: false }],
      certificate: null,
    });
    expect(await check(await diplomaPdf('unsigned'))).toEqual({
      verdict: 'unsigned',
      document_type: null,
      claimed_certificate_uuid: null,
      signatures: [],
      certificate: null,
      anchor: null,
    });
    const raw = await fetch(`${service.url}/api/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(signed) });
    expect(((await raw.json()) as any).data.verdict).toBe('authentic');
  });
});
