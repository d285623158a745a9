import { factories, type Factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

// Issue 31: one validation round. A request with format errors and unknown related records answers
// both in ONE 422 (REST `errors`, GraphQL `extensions.errors`), every unknown uuid named — a foreign
// tenant's exactly like one that never existed — whether the GraphQL input came as variables or literals.

let service: TestService;
let acme: ApiClient;
let make: Factories;
let foreign: { student: string; course: string; institution: string };

const UNKNOWN = '0190d3b4-0000-7000-8000-00000000beef';
const INVALID_URL = 'The public verification url field must be a valid URL.';
const selected = (field: string) => [`The selected ${field} is invalid.`];

beforeAll(async () => {
  service = await startTestService();
  const globex = await signIn(service, 'globex');
  acme = await signIn(service, 'acme');
  make = factories(acme);
  const theirs = factories(globex);
  const institution = await theirs.institution();
  const [student, course] = await Promise.all([theirs.student(), theirs.course({ institution_uuid: institution.uuid })]);
  foreign = { student: student.uuid, course: course.uuid, institution: institution.uuid };
});
afterAll(() => service.stop());

/** The one GraphQL error of a refused operation: BAD_USER_INPUT with every field, and Laravel's summary as its message. */
function refusal(response: { body: any }) {
  expect(response.body.errors).toHaveLength(1);
  const [error] = response.body.errors;
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  return error;
}

describe('a certificate with format errors and unknown related records', () => {
  const certificateErrors = {
    course_uuid: selected('course uuid'),
    student_uuid: selected('student uuid'),
    template_uuid: selected('template uuid'),
    file_uuid: selected('file uuid'),
    locale: [expect.stringMatching(/^The selected locale is invalid; allowed: en, /)],
    public_verification_url: [INVALID_URL],
    expires_at: ['The expires at field must be a valid date.'],
  };
  const camel = {
    courseUuid: certificateErrors.course_uuid,
    studentUuid: certificateErrors.student_uuid,
    templateUuid: certificateErrors.template_uuid,
    fileUuid: certificateErrors.file_uuid,
    locale: certificateErrors.locale,
    publicVerificationUrl: certificateErrors.public_verification_url,
    expiresAt: certificateErrors.expires_at,
  };

  it('answers one REST 422 naming every format error and every unknown uuid, a foreign tenant’s like a missing one', async () => {
    const response = await acme.rest('POST', '/certificates', {
      course_uuid: UNKNOWN,
      student_uuid: foreign.student,
      template_uuid: 'not-a-uuid',
      file_uuid: UNKNOWN,
      locale: 'xx',
      public_verification_url: 'ftp:nope',
      expires_at: 'garbage',
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual(certificateErrors);
    expect(response.body.message).toMatch(/ \(and 6 more errors\)$/);
  });

  it('answers the same in GraphQL with variables', async () => {
    const response = await acme.graphql('mutation($input: CertificateInput!) { createCertificate(input: $input) { uuid } }', {
      input: {
        courseUuid: UNKNOWN,
        studentUuid: foreign.student,
        templateUuid: 'not-a-uuid',
        fileUuid: UNKNOWN,
        locale: 'xx',
        publicVerificationUrl: 'ftp:nope',
        expiresAt: 'garbage',
      },
    });
    expect(refusal(response).extensions.errors).toEqual(camel);
  });

  it('answers the same in GraphQL with literals: no bad literal hides another, nor the unknown records', async () => {
    const response = await acme.graphql(`mutation {
      createCertificate(input: {
        courseUuid: "${UNKNOWN}", studentUuid: "${foreign.student}", templateUuid: "not-a-uuid", fileUuid: "${UNKNOWN}",
        locale: "xx", publicVerificationUrl: "ftp:nope", expiresAt: "garbage"
      }) { uuid }
    }`);
    const error = refusal(response);
    expect(error.extensions.errors).toEqual(camel);
    expect(error.message).toMatch(/ \(and 6 more errors\)$/);
  });

  it('reports literals of the wrong kind (a string for a boolean, a number for a string) with the rest', async () => {
    const response = await acme.graphql(`mutation {
      createCertificate(input: { courseUuid: "${UNKNOWN}", finish: "yes", locale: 7, expiresAt: "garbage" }) { uuid }
    }`);
    expect(refusal(response).extensions.errors).toEqual({
      courseUuid: selected('course uuid'),
      studentUuid: ['The student uuid field is required when none of student external id / recipient are present.'],
      finish: ['The finish field must be true or false.'],
      locale: ['The locale field must be a string.'],
      expiresAt: ['The expires at field must be a valid date.'],
    });
  });

  it('names a required field left out of a literal with the rest, and leaves documents with other faults to graphql-js', async () => {
    const missing = await acme.graphql(`mutation { createCourse(input: { name: "${'x'.repeat(256)}", workload: "many" }) { uuid } }`);
    expect(refusal(missing).extensions.errors).toEqual({
      institutionUuid: ['The institution uuid field is required.'],
      name: ['The name field must not be greater than 255 characters.'],
      workload: ['The workload field must be an integer.'],
    });
    const unknownField = await acme.graphql('mutation { createCourse(input: { name: "N", workload: "many" }) { uuid nope } }');
    expect(unknownField.body.errors.map((error: any) => error.extensions.code)).toEqual([
      'GRAPHQL_VALIDATION_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
    ]);
  });

  it('names every unknown record in one 422 when nothing is malformed, the source file among them', async () => {
    const response = await acme.rest('POST', '/certificates', { course_uuid: UNKNOWN, student_uuid: foreign.student, file_uuid: UNKNOWN });
    expect([response.status, response.body.errors]).toEqual([
      422,
      { course_uuid: selected('course uuid'), student_uuid: selected('student uuid'), file_uuid: selected('file uuid') },
    ]);
  });

  it('checks the references a field names when only other fields are malformed, and creates nothing', async () => {
    const course = await make.course();
    const student = await make.student();
    const response = await acme.rest('POST', '/certificates', { course_uuid: course.uuid, student_uuid: student.uuid, template_uuid: UNKNOWN, locale: 'xx' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['locale', 'template_uuid']);
    expect((await acme.rest('GET', `/certificates?where[student_uuid]=${student.uuid}`)).body.meta.total).toBe(0);
  });
});

describe('enrollments and courses', () => {
  it('reports an enrollment’s bad date, enum and grade with its unknown student, foreign course and malformed cohort, in both styles', async () => {
    const rest = await acme.rest('POST', '/enrollments', {
      student_uuid: UNKNOWN,
      course_uuid: foreign.course,
      cohort_uuid: 'not-a-uuid',
      enrolled_at: 'garbage',
      completion_status: 'graduated',
      grade: 11,
    });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual({
      student_uuid: selected('student uuid'),
      course_uuid: selected('course uuid'),
      cohort_uuid: selected('cohort uuid'),
      enrolled_at: ['The enrolled at field must be a valid date.'],
      completion_status: ['The selected completion status is invalid.'],
      grade: ['The grade field must not be greater than 10.'],
    });
    const literal = await acme.graphql(`mutation {
      createEnrollment(input: {
        studentUuid: "${UNKNOWN}", courseUuid: "${foreign.course}", cohortUuid: "not-a-uuid",
        enrolledAt: "garbage", completionStatus: graduated, grade: 11
      }) { uuid }
    }`);
    expect(refusal(literal).extensions.errors).toEqual({
      studentUuid: rest.body.errors.student_uuid,
      courseUuid: rest.body.errors.course_uuid,
      cohortUuid: rest.body.errors.cohort_uuid,
      enrolledAt: rest.body.errors.enrolled_at,
      completionStatus: rest.body.errors.completion_status,
      grade: rest.body.errors.grade,
    });
  });

  it('names an unknown student external id with the format errors', async () => {
    const rest = await acme.rest('POST', '/enrollments', { student_external_id: 'nobody', course_uuid: UNKNOWN, enrolled_at: 'garbage' });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual({
      student_external_id: selected('student external id'),
      course_uuid: selected('course uuid'),
      enrolled_at: ['The enrolled at field must be a valid date.'],
    });
  });

  it('reports a course’s over-long name and negative workload with its foreign institution, on create and on PATCH', async () => {
    const created = await acme.rest('POST', '/courses', { institution_uuid: foreign.institution, name: 'x'.repeat(256), workload: -1 });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual({
      institution_uuid: selected('institution uuid'),
      name: ['The name field must not be greater than 255 characters.'],
      workload: ['The workload field must be at least 0.'],
    });
    const course = await make.course();
    const patched = await acme.rest('PATCH', `/courses/${course.uuid}`, { institution_uuid: UNKNOWN, code: 'c'.repeat(51) });
    expect(patched.status).toBe(422);
    expect(patched.body.errors).toEqual({
      institution_uuid: selected('institution uuid'),
      code: ['The code field must not be greater than 50 characters.'],
    });
  });
});

describe('batches', () => {
  it('reports every item’s format errors and unknown records in one 422, keyed by index', async () => {
    const course = await make.course();
    const student = await make.student();
    const valid = { course_uuid: course.uuid, student_uuid: student.uuid };
    const response = await acme.rest('POST', '/certificates/batch', {
      inputs: [
        { ...valid, public_verification_url: 'ftp:nope' },
        { ...valid, student_uuid: foreign.student },
        { ...valid, course_uuid: UNKNOWN, locale: 'xx' },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'inputs.0.public_verification_url': [INVALID_URL],
      'inputs.1.student_uuid': selected('student uuid'),
      'inputs.2.course_uuid': selected('course uuid'),
      'inputs.2.locale': [expect.stringMatching(/^The selected locale is invalid/)],
    });
  });

  it('reads a course named by external id once however many items name it', async () => {
    const course = await make.course({ external_id: 'ROUND-ONE' });
    const student = await make.student();
    const inputs = Array.from({ length: 40 }, () => ({
      course_external_id: course.external_id,
      student_uuid: student.uuid,
      public_verification_url: 'ftp:nope',
    }));
    service.statements.length = 0;
    const response = await acme.rest('POST', '/certificates/batch', { inputs });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toHaveLength(40);
    expect(response.body.errors['inputs.39.public_verification_url']).toEqual([INVALID_URL]);
    expect(service.statements.filter((sql) => /from "courses"/.test(sql) && /external_id/.test(sql))).toHaveLength(1);
  });

  it('keeps every refused field of a long batch in the one GraphQL error', async () => {
    const inputs = Array.from({ length: 30 }, () => ({ courseUuid: UNKNOWN, studentUuid: UNKNOWN, publicVerificationUrl: 'ftp:nope' }));
    const response = await acme.graphql('mutation($inputs: [CertificateInput!]!) { createCertificates(inputs: $inputs) { uuid } }', { inputs });
    const errors = refusal(response).extensions.errors;
    // At most 50 fields are reported (the validation pass's limit); each is a whole field, never a cut message.
    expect(Object.keys(errors)).toHaveLength(50);
    expect(errors['inputs.0.publicVerificationUrl']).toEqual([INVALID_URL]);
  });
});

describe('POST /api/v1/badges/verify', () => {
  const verify = (body: string) =>
    fetch(`${service.url}/api/v1/badges/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as any,
    }));

  it('answers {} and malformed input with a 422 in the service’s error shape', async () => {
    const empty = await verify('{}');
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body)).toEqual(['message', 'errors']);
    expect(empty.body.errors.credential).toContain('The credential must name its issuer.');
    const malformed = await verify('{"@context": 5, "type": "x", "issuer": [], "credentialSubject": "me"}');
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body)).toEqual(['message', 'errors']);
    expect(malformed.body.message).not.toMatch(/TypeError|undefined|is not a function|Cannot read/);
    expect(await verify('{"not json')).toMatchObject({ status: 422, body: { errors: { credential: ['The credential is not JSON.'] } } });
  });
});
