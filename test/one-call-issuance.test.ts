import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { factories, type Factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { decodedHeader, SmtpListener } from './support/smtp.js';
import { until } from './support/wait.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

jest.setTimeout(120_000);

let smtp: SmtpListener;
let receiver: WebhookReceiver;
let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
let courseExternalId: string;

beforeAll(async () => {
  smtp = await new SmtpListener().listen();
  receiver = await new WebhookReceiver().listen();
  service = await startTestService({ SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '100' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
  const institution = await make.institution({ name: 'Instituto Federal' });
  courseExternalId = `course-${randomUUID()}`;
  await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', external_id: courseExternalId });
});
afterAll(async () => {
  await service.stop();
  await smtp.close();
  await receiver.close();
});

let pdfCounter = 0;
async function uploadedPdf(api: ApiClient = acme): Promise<string> {
  const response = await upload(api, [[await diplomaPdf(`One call #${++pdfCounter}`), 'diploma.pdf']]);
  expect(response.status).toBe(201);
  return response.body.data[0].uuid;
}

const withKey = (key: string) => ({ 'Idempotency-Key': key });
const studentsWith = async (email: string) => (await acme.rest('GET', `/students?where[email]=${encodeURIComponent(email)}`)).body.data;

describe('one-call issuance: POST /certificates with a recipient and the course’s external id', () => {
  it('issues to a new recipient in one call, registers them once, and a replay with the same key answers the same', async () => {
    const email = `new-${randomUUID()}@example.org`;
    const body = {
      course_external_id: courseExternalId,
      recipient: { email, name: 'Ana Souza', date_of_birth: '1999-04-05', external_id: `sis-${randomUUID()}` },
      file_uuid: await uploadedPdf(),
      finish: true,
    };
    const key = randomUUID();
    const first = await acme.rest('POST', '/certificates', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ status: 'issued', course: { name: 'Data Engineering' }, institution: { name: 'Instituto Federal' } });
    expect(first.body.data.student.name).toBe('Ana Souza');
    expect(first.body.data.files.map((file: { type: string }) => file.type).sort()).toEqual(['certificate', 'source', 'transcript']);
    const [student] = await studentsWith(email);
    expect(student).toMatchObject({ name: 'Ana Souza', email, date_of_birth: '1999-04-05', external_id: body.recipient.external_id });
    expect(first.body.data.student.uuid).toBe(student.uuid);

    const replay = await acme.rest('POST', '/certificates', body, withKey(key));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await studentsWith(email)).toHaveLength(1);
    expect((await acme.rest('GET', `/certificates?where[student_uuid]=${student.uuid}`)).body.data).toHaveLength(1);
    await until(() => smtp.to(email).length === 1, 'the issued e-mail');
  });

  it('finds an existing student by email (case-insensitive), keeping their record, and links nothing new', async () => {
    const existing = await make.student({ name: 'Carlos Lima', email: `carlos-${randomUUID()}@example.org` });
    const response = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email: existing.email.toUpperCase(), name: 'Someone Else' },
      file_uuid: await uploadedPdf(),
      finish: true,
    });
    expect(response.status).toBe(201);
    expect(response.body.data.student).toEqual({ uuid: existing.uuid, name: 'Carlos Lima' });
    expect(await studentsWith(existing.email)).toHaveLength(1);
  });

  it('finds an existing student by external id before email, and accepts student_external_id where student_uuid goes', async () => {
    const externalId = `sis-${randomUUID()}`;
    const existing = await make.student({ name: 'Beatriz Reis', external_id: externalId });
    const byRecipient = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email: `other-${randomUUID()}@example.org`, name: 'Beatriz R.', external_id: externalId },
      file_uuid: await uploadedPdf(),
    });
    expect(byRecipient.status).toBe(201);
    expect(byRecipient.body.data).toMatchObject({ status: 'draft', student: { uuid: existing.uuid } });
    const byExternalId = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      student_external_id: externalId,
      file_uuid: await uploadedPdf(),
    });
    expect(byExternalId.status).toBe(201);
    expect(byExternalId.body.data.student.uuid).toBe(existing.uuid);
  });

  it('GraphQL: createCertificate with a recipient issues in one call', async () => {
    const email = `gql-${randomUUID()}@example.org`;
    const response = await acme.graphql(
      `mutation($input: CertificateInput!) { createCertificate(input: $input) { status student { email externalId } course { externalId } } }`,
      {
        input: {
          courseExternalId,
          recipient: { email, name: 'Davi Nunes', dateOfBirth: '2000-01-02', externalId: 'gql-1' },
          fileUuid: await uploadedPdf(),
          finish: true,
        },
      },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.createCertificate).toEqual({
      status: 'issued',
      student: { email, externalId: 'gql-1' },
      course: { externalId: courseExternalId },
    });
  });

  it('two concurrent one-call issuances for the same new email register exactly one student, and both certificates name it', async () => {
    const email = `race-${randomUUID()}@example.org`;
    const bodies = await Promise.all(
      [1, 2, 3].map(async () => ({
        course_external_id: courseExternalId,
        recipient: { email, name: 'Eva Prado', date_of_birth: '1998-07-08' },
        file_uuid: await uploadedPdf(),
        finish: true,
      })),
    );
    const answers = await Promise.all(bodies.map((body) => acme.rest('POST', '/certificates', body)));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    const students = await studentsWith(email);
    expect(students).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.data.student.uuid))).toEqual(new Set([students[0].uuid]));
  });

  it('a refused certificate registers nobody; unknown references and missing parties are reported together', async () => {
    const email = `refused-${randomUUID()}@example.org`;
    const refused = await acme.rest('POST', '/certificates', {
      course_external_id: 'no-such-course',
      recipient: { email, name: 'Fabio Melo', date_of_birth: '1997-01-01' },
      cohort_uuid: randomUUID(),
      file_uuid: await uploadedPdf(),
      finish: true,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      course_external_id: ['The selected course external id is invalid.'],
      cohort_uuid: ['The selected cohort uuid is invalid.'],
    });
    expect(await studentsWith(email)).toHaveLength(0);
    const missing = await acme.rest('POST', '/certificates', { file_uuid: await uploadedPdf() });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['course_uuid', 'student_uuid']);
    const newWithoutBirth = await acme.rest('POST', '/certificates', { course_external_id: courseExternalId, recipient: { email, name: 'Fabio Melo' } });
    expect(newWithoutBirth.status).toBe(422);
    expect(newWithoutBirth.body.errors).toHaveProperty(['recipient.date_of_birth']);
  });

  it('another tenant’s external ids name nothing', async () => {
    const refused = await globex.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email: `x-${randomUUID()}@example.org`, name: 'G', date_of_birth: '1990-01-01' },
      file_uuid: await uploadedPdf(globex),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ course_external_id: ['The selected course external id is invalid.'] });
  });
});

describe('notifications', () => {
  const issueTo = async (email: string, extra: Record<string, unknown> = {}) => {
    const response = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email, name: 'Helena Costa', date_of_birth: '1995-03-04' },
      file_uuid: await uploadedPdf(),
      finish: true,
      ...extra,
    });
    expect(response.status).toBe(201);
    return response.body.data.uuid as string;
  };

  it('notify: false issues without an e-mail; issueCertificate(notify: false) too', async () => {
    const quiet = `quiet-${randomUUID()}@example.org`;
    await issueTo(quiet, { notify: false });
    const draft = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email: quiet, name: 'Helena Costa' },
      file_uuid: await uploadedPdf(),
    });
    const issued = await acme.rest('POST', `/certificates/${draft.body.data.uuid}/issue`, { notify: false });
    expect(issued.body.data.status).toBe('issued');
    // A certificate issued with the default afterwards is e-mailed: once it arrives, the quiet ones would have too.
    const loud = `loud-${randomUUID()}@example.org`;
    await issueTo(loud);
    await until(() => smtp.to(loud).length === 1, 'the default e-mail');
    expect(smtp.to(quiet)).toHaveLength(0);
  });

  it('POST /certificates/{uuid}/notifications sends the e-mail again (202 + Location), at most 3 e-mails an hour, only for issued certificates', async () => {
    const email = `resend-${randomUUID()}@example.org`;
    const uuid = await issueTo(email, { notify: false });
    const resent = await acme.rest('POST', `/certificates/${uuid}/notifications`);
    expect(resent.status).toBe(202);
    expect(resent.headers.get('location')).toMatch(new RegExp(`/api/v1/certificates/${uuid}$`));
    await until(() => smtp.to(email).length === 1, 'the resent e-mail');
    expect(smtp.to(email)[0]!.raw).toContain(uuid);
    const graphql = await acme.graphql('mutation($uuid: ID!) { resendCertificateNotification(uuid: $uuid) { uuid } }', { uuid });
    expect(graphql.body.errors).toBeUndefined();
    expect((await acme.rest('POST', `/certificates/${uuid}/notifications`)).status).toBe(202);
    const limited = await acme.rest('POST', `/certificates/${uuid}/notifications`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(limited.body).toMatchObject({ reason: 'notification_rate_limited' });
    await until(() => smtp.to(email).length === 3, 'three e-mails');

    const draft = await acme.rest('POST', '/certificates', {
      course_external_id: courseExternalId,
      recipient: { email, name: 'H' },
      file_uuid: await uploadedPdf(),
    });
    expect((await acme.rest('POST', `/certificates/${draft.body.data.uuid}/notifications`)).status).toBe(409);
    expect((await globex.rest('POST', `/certificates/${uuid}/notifications`)).status).toBe(404);
  });

  it('the certificate’s locale picks the e-mail’s language; an unknown locale is a 422 naming the languages', async () => {
    const email = `locale-${randomUUID()}@example.org`;
    const uuid = await issueTo(email, { locale: 'pt-BR' });
    expect((await acme.rest('GET', `/certificates/${uuid}`)).body.data.locale).toBe('pt-BR');
    await until(() => smtp.to(email).length === 1, 'the Portuguese e-mail');
    const mail = smtp.to(email)[0]!.raw;
    expect(decodedHeader(mail, 'Subject')).toBe('Seu certificado de Data Engineering emitido por Instituto Federal');
    expect(mail).toContain('ID do certificado');
    const refused = await acme.rest('POST', '/certificates', { course_external_id: courseExternalId, recipient: { email, name: 'H' }, locale: 'xx' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.locale).toEqual([expect.stringContaining('pt-BR')]);
  });
});

describe('integrator webhook events', () => {
  it('certificate.updated on a draft change; job.finished when a batch (of one-call items) completes, and GET /jobs lists it by status', async () => {
    const hook = await acme.rest('POST', '/webhooks', { url: receiver.url('/integrator'), events: ['certificate.updated', 'job.finished'] });
    expect(hook.status).toBe(201);
    const email = `batch-${randomUUID()}@example.org`;
    const item = async () => ({
      course_external_id: courseExternalId,
      recipient: { email, name: 'Igor Alves', date_of_birth: '1993-02-01' },
      file_uuid: await uploadedPdf(),
    });
    const batch = await acme.rest('POST', '/certificates/batch', { inputs: [await item(), await item()] });
    expect([200, 202]).toContain(batch.status);
    const jobUuid = batch.body.data.uuid as string;
    await until(() => receiver.at('/integrator').some((request) => JSON.parse(request.body).type === 'job.finished'), 'job.finished');
    const finished = JSON.parse(receiver.at('/integrator').find((request) => JSON.parse(request.body).type === 'job.finished')!.body);
    expect(finished.data).toMatchObject({ uuid: jobUuid, kind: 'certificates.batch', status: 'completed', total: 2, done: 2, failed: 0 });
    expect(await studentsWith(email)).toHaveLength(1);

    const completed = await acme.rest('GET', '/jobs?where[status]=completed&sort[column]=created_at&sort[order]=desc');
    expect(completed.status).toBe(200);
    expect(completed.body.data[0]).toMatchObject({ uuid: jobUuid, status: 'completed', total: 2, done: 2 });
    expect(completed.body.meta).toMatchObject({ current_page: 1, total: 1 });
    expect((await acme.rest('GET', '/jobs?where[status]=queued')).body.data).toEqual([]);
    expect((await globex.rest('GET', '/jobs')).body.data).toEqual([]);
    const graphqlJobs = await acme.graphql('{ jobs(where: {status: completed}) { totalCount nodes { uuid done } } }');
    expect(graphqlJobs.body.data.jobs).toEqual({ totalCount: 1, nodes: [{ uuid: jobUuid, done: 2 }] });

    const draft = (await acme.rest('GET', `/jobs/${jobUuid}`)).body.data.results[0].uuid as string;
    const patched = await acme.rest('PATCH', `/certificates/${draft}`, { external_id: `cert-${randomUUID()}` });
    expect(patched.status).toBe(200);
    await until(() => receiver.at('/integrator').some((request) => JSON.parse(request.body).type === 'certificate.updated'), 'certificate.updated');
    const updated = JSON.parse(receiver.at('/integrator').find((request) => JSON.parse(request.body).type === 'certificate.updated')!.body);
    expect(updated.data).toMatchObject({ uuid: draft, status: 'draft' });
  });
});

describe('external_id', () => {
  it('is unique per tenant and resource (422), filterable with where[external_id], and free in another tenant', async () => {
    const externalId = `inst-${randomUUID()}`;
    const created = await acme.rest('POST', '/institutions', { name: 'Ext', country: 'BR', external_id: externalId });
    expect(created.status).toBe(201);
    expect(created.body.data.external_id).toBe(externalId);
    const taken = await acme.rest('POST', '/institutions', { name: 'Ext 2', country: 'BR', external_id: externalId });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ external_id: ['The external id has already been taken.'] });
    expect((await globex.rest('POST', '/institutions', { name: 'Ext', country: 'BR', external_id: externalId })).status).toBe(201);
    const listed = await acme.rest('GET', `/institutions?where[external_id]=${externalId}`);
    expect(listed.body.data.map((row: { uuid: string }) => row.uuid)).toEqual([created.body.data.uuid]);
    const tooLong = await acme.rest('POST', '/students', {
      name: 'L',
      email: `l-${randomUUID()}@example.org`,
      date_of_birth: '2000-01-01',
      external_id: 'x'.repeat(256),
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({ external_id: ['The external id field must not be greater than 255 characters.'] });
  });

  it('enrollments accept student_external_id and course_external_id, and name every unknown reference at once', async () => {
    const studentExternalId = `sis-${randomUUID()}`;
    const student = await make.student({ external_id: studentExternalId });
    const enrolled = await acme.rest('POST', '/enrollments', {
      student_external_id: studentExternalId,
      course_external_id: courseExternalId,
      enrolled_at: '2026-01-10',
    });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.data).toMatchObject({ student: { uuid: student.uuid }, course: { name: 'Data Engineering' } });
    const unknown = await acme.rest('POST', '/enrollments', {
      student_uuid: randomUUID(),
      course_external_id: 'nope',
      cohort_uuid: randomUUID(),
      enrolled_at: '2026-01-10',
    });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors).sort()).toEqual(['cohort_uuid', 'course_external_id', 'student_uuid']);
  });
});
