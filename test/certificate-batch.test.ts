import { jest } from '@jest/globals';
import { factories, type Factories } from './support/factories.js';
import { createTestDatabase } from './support/database.js';
import { pdfBytes, upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { ApiClient, PUBLIC_BASE_URL, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(120_000);

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

/** `count` uploaded PDFs (real diplomas when they are to be signed), 20 a request. */
async function sources(api: ApiClient, count: number, signable = false): Promise<string[]> {
  const uuids: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const parts = await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, async (_, offset) => {
        const label = `batch ${Date.now()} ${start + offset} ${Math.random()}`;
        return [signable ? await diplomaPdf(label) : pdfBytes(label), 'diploma.pdf'] as [Uint8Array, string];
      }),
    );
    const response = await upload(api, parts);
    expect(response.status).toBe(201);
    uuids.push(...response.body.data.map((file: { uuid: string }) => file.uuid));
  }
  return uuids;
}

/** Inputs for `count` certificates of one institution, course and student, each on its own file. */
async function batch(count: number, fields: Record<string, unknown> = {}, signable = false): Promise<Record<string, unknown>[]> {
  const institution = await make.institution();
  const course = await make.course({ institution_uuid: institution.uuid });
  const student = await make.student();
  const files = await sources(acme, count, signable);
  return files.map((file_uuid) => ({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid, ...fields }));
}

async function certificateCount(api: ApiClient, studentUuid: unknown): Promise<number> {
  return (await api.rest('GET', `/certificates?where[student_uuid]=${String(studentUuid)}`)).body.meta.total;
}

describe('bulk issuance', () => {
  it('a batch with invalid items is refused whole: one 422 lists every failing index and field, nothing is created', async () => {
    const items = await batch(5);
    const other = await make.course();
    items[1]!.student_uuid = '0190d3b4-0000-7000-8000-000000000000';
    items[2]!.file_uuid = items[0]!.file_uuid;
    items[4]!.course_uuid = other.uuid;
    const refused = await acme.rest('POST', '/certificates/batch', { inputs: items });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      'inputs.1.student_uuid': ['The selected student uuid is invalid.'],
      'inputs.2.file_uuid': ['The file uuid is already used by item 0 of this batch.'],
      'inputs.4.course_uuid': ['The course does not belong to the institution.'],
    });
    expect(refused.body.message).toContain('(and 2 more errors)');
    expect(await certificateCount(acme, items[0]!.student_uuid)).toBe(0);
  });

  // Format rules run in the operation's one validation pass, every item's at once; the records the
  // well-formed fields name are looked up in the same pass (validation-round.test.ts).
  it('format errors of several items are reported at once, with their indexes', async () => {
    const items = await batch(4);
    items[1]!.public_verification_url = 'not a url';
    items[3]!.public_verification_url = 'also not a url';
    const refused = await acme.rest('POST', '/certificates/batch', { inputs: items });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['inputs.1.public_verification_url', 'inputs.3.public_verification_url']);
    expect(refused.body.errors['inputs.1.public_verification_url']).toEqual([expect.stringContaining('public verification url')]);
    expect(await certificateCount(acme, items[0]!.student_uuid)).toBe(0);
  });

  it('a missing field of an item is reported with its index, in both styles', async () => {
    const [valid] = await batch(1);
    const { student_uuid: _, ...withoutStudent } = valid!;
    const rest = await acme.rest('POST', '/certificates/batch', { inputs: [valid, withoutStudent] });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual({
      'inputs.1.student_uuid': ['The student uuid field is required when none of student external id / recipient are present.'],
    });
    const graphql = await acme.graphql('mutation($inputs: [CertificateInput!]!) { createCertificates(inputs: $inputs) { uuid } }', {
      inputs: [{ institutionUuid: valid!.institution_uuid, courseUuid: valid!.course_uuid, fileUuid: valid!.file_uuid }],
    });
    expect(graphql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { 'inputs.0.studentUuid': ['The student uuid field is required when none of student external id / recipient are present.'] },
    });
  });

  it('more than 500 items, or none, is a 422', async () => {
    const [one] = await batch(1);
    const tooMany = await acme.rest('POST', '/certificates/batch', { inputs: Array(501).fill(one) });
    expect([tooMany.status, tooMany.body.errors]).toEqual([422, { inputs: ['The inputs field must not have more than 500 items.'] }]);
    const none = await acme.rest('POST', '/certificates/batch', { inputs: [] });
    expect([none.status, none.body.errors]).toEqual([422, { inputs: ['The inputs field must have at least 1 item.'] }]);
  });

  it('a valid short batch is issued during the request, with a result per item; the job keeps them', async () => {
    const items = await batch(3, { finish: true }, true);
    const issued = await acme.rest('POST', '/certificates/batch', { inputs: items });
    expect(issued.status).toBe(200);
    expect(issued.body.data).toMatchObject({ kind: 'certificates.batch', status: 'completed', total: 3, done: 3, failed: 0, finished_at: expect.any(String) });
    expect(issued.body.data.results).toEqual([0, 1, 2].map((index) => ({ index, uuid: expect.any(String), status: 'issued', error: null })));
    for (const result of issued.body.data.results) {
      const certificate = await acme.rest('GET', `/certificates/${result.uuid}`);
      expect(certificate.body.data.status).toBe('issued');
    }
    const job = await acme.rest('GET', `/jobs/${issued.body.data.uuid}`);
    expect(job.body).toEqual(issued.body);
    expect((await globex.rest('GET', `/jobs/${issued.body.data.uuid}`)).status).toBe(404);
  });

  it('an item refused during issuance fails alone: its result carries the error, the others are issued', async () => {
    const [signable] = await batch(1, { finish: true }, true);
    const [unsignable] = await batch(1, { finish: true });
    const issued = await acme.rest('POST', '/certificates/batch', { inputs: [signable, unsignable] });
    expect(issued.status).toBe(200);
    expect(issued.body.data).toMatchObject({ status: 'completed', total: 2, done: 1, failed: 1 });
    expect(issued.body.data.results).toEqual([
      { index: 0, uuid: expect.any(String), status: 'issued', error: null },
      {
        index: 1,
        uuid: null,
        status: 'failed',
        error: { code: 'BAD_USER_INPUT', message: expect.any(String), reason: 'PDF_UNREADABLE', errors: { file_uuid: [expect.any(String)] } },
      },
    ]);
    expect(await certificateCount(acme, unsignable!.student_uuid)).toBe(0);
  });

  it('GraphQL createCertificates returns the job with per-item results', async () => {
    const items = await batch(2);
    const inputs = items.map((item) => ({
      institutionUuid: item.institution_uuid,
      courseUuid: item.course_uuid,
      studentUuid: item.student_uuid,
      fileUuid: item.file_uuid,
    }));
    const created = await acme.graphql(
      'mutation($inputs: [CertificateInput!]!) { createCertificates(inputs: $inputs) { uuid status total done failed results { index uuid status error { code } } } }',
      { inputs },
    );
    expect(created.body.data.createCertificates).toMatchObject({ status: 'completed', total: 2, done: 2, failed: 0 });
    expect(created.body.data.createCertificates.results.map((result: { status: string }) => result.status)).toEqual(['draft', 'draft']);
    const job = await acme.graphql('query($uuid: ID!) { job(uuid: $uuid) { status done } }', { uuid: created.body.data.createCertificates.uuid });
    expect(job.body.data.job).toEqual({ status: 'completed', done: 2 });
  });

  it('a long batch runs as a job: 202, then progress until every item has its result', async () => {
    const items = await batch(60);
    const accepted = await acme.rest('POST', '/certificates/batch', { inputs: items });
    expect(accepted.status).toBe(202);
    // The answer reads the job back after its commit: a job worker may have taken it up by then.
    expect(accepted.body.data).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), total: 60, failed: 0, finished_at: null });
    expect(accepted.body.data.done).toBeLessThan(60);
    expect(accepted.headers.get('location')).toBe(`${PUBLIC_BASE_URL}/api/v1/jobs/${accepted.body.data.uuid}`);
    const seen = new Set<number>();
    let job: Record<string, any> = accepted.body.data;
    await until(async () => {
      job = (await acme.rest('GET', `/jobs/${accepted.body.data.uuid}`)).body.data;
      seen.add(job.done);
      return job.status === 'completed';
    }, 'the batch job to complete');
    expect(job).toMatchObject({ total: 60, done: 60, failed: 0, finished_at: expect.any(String) });
    expect(job.results.map((result: { index: number }) => result.index)).toEqual([...Array(60).keys()]);
    expect(Math.max(...seen)).toBe(60);
    expect(await certificateCount(acme, items[0]!.student_uuid)).toBe(60);
  });

  it('a job survives a restart: another process resumes it and no item is created twice', async () => {
    const database = await createTestDatabase();
    let first: TestService | undefined = await startTestService({}, database);
    try {
      const api = await signIn(first, 'acme');
      const own = factories(api);
      const institution = await own.institution();
      const course = await own.course({ institution_uuid: institution.uuid });
      const student = await own.student();
      const files = await sources(api, 60);
      const inputs = files.map((file_uuid) => ({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid }));
      const accepted = await api.rest('POST', '/certificates/batch', { inputs });
      expect(accepted.status).toBe(202);
      await first.stop();
      first = undefined;

      const second = await startTestService({}, database);
      try {
        const again = new ApiClient(second.url, api.token, api.tenant);
        let job: Record<string, any> = {};
        await until(async () => {
          job = (await again.rest('GET', `/jobs/${accepted.body.data.uuid}`)).body.data;
          return job.status === 'completed';
        }, 'the resumed job to complete');
        expect(job).toMatchObject({ total: 60, done: 60, failed: 0 });
        expect(await certificateCount(again, student.uuid)).toBe(60);
      } finally {
        await second.stop();
      }
    } finally {
      await first?.stop();
      await database.drop();
    }
  });
});
