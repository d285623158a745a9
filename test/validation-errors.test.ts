import { factories, type Factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let make: Factories;

beforeAll(async () => {
  service = await startTestService();
  api = await signIn(service, 'acme');
  make = factories(api);
});
afterAll(() => service.stop());

/** The same bad input through both styles: REST's `errors` (snake_case) and GraphQL's `extensions.errors` (camelCase) list the same fields and messages. */
async function bothStyles(path: string, mutation: string, inputType: string, restBody: Record<string, unknown>, graphqlInput: Record<string, unknown>) {
  const rest = await api.rest('POST', path, restBody);
  const graphql = await api.graphql(`mutation($input: ${inputType}!) { ${mutation}(input: $input) { uuid } }`, { input: graphqlInput });
  expect(rest.status).toBe(422);
  expect(graphql.body.errors).toHaveLength(1);
  expect(graphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  return { rest: rest.body, graphql: graphql.body.errors[0] };
}

describe('every field error of a request at once', () => {
  it('reports missing fields, wrong types, unknown enum values and format rules of an institution together', async () => {
    const { rest, graphql } = await bothStyles(
      '/institutions',
      'createInstitution',
      'InstitutionInput',
      { website: 'not a url', tax_id: 'x'.repeat(65), status: 'closed', is_badges_enabled: 'yes' },
      { website: 'not a url', taxId: 'x'.repeat(65), status: 'closed', isBadgesEnabled: 'yes' },
    );
    const messages = {
      name: ['The name field is required.'],
      country: ['The country field is required.'],
      tax_id: ['The tax id field must not be greater than 64 characters.'],
      website: ['The website field must be a valid URL.'],
      status: ['The selected status is invalid.'],
      is_badges_enabled: ['The is badges enabled field must be true or false.'],
    };
    expect(rest.errors).toEqual(messages);
    expect(graphql.extensions.errors).toEqual({
      name: messages.name,
      country: messages.country,
      taxId: messages.tax_id,
      website: messages.website,
      status: messages.status,
      isBadgesEnabled: messages.is_badges_enabled,
    });
    expect(rest.message).toBe('The name field is required. (and 5 more errors)');
    expect(graphql.message).toBe(rest.message);
  });

  it('reports a student’s missing name with its invalid email and future birth date', async () => {
    const { rest, graphql } = await bothStyles(
      '/students',
      'createStudent',
      'StudentInput',
      { email: 'not-an-email', date_of_birth: '2999-12-31', gender: 12 },
      { email: 'not-an-email', dateOfBirth: '2999-12-31', gender: 12 },
    );
    expect(rest.errors).toEqual({
      name: ['The name field is required.'],
      email: ['The email field must be a valid email address.'],
      date_of_birth: ['The date of birth field must be a date before today.'],
      gender: ['The gender field must be a string.'],
    });
    expect(Object.keys(graphql.extensions.errors)).toEqual(['name', 'email', 'dateOfBirth', 'gender']);
  });

  it('joins the rules comparing two fields with the other field errors of an enrollment', async () => {
    const course = await make.course();
    const { rest, graphql } = await bothStyles(
      '/enrollments',
      'createEnrollment',
      'EnrollmentInput',
      { course_uuid: course.uuid, enrolled_at: '2025-05-01', completed_at: '2025-04-01', grade: 10.555, completion_status: 'graduated' },
      { courseUuid: course.uuid, enrolledAt: '2025-05-01', completedAt: '2025-04-01', grade: 10.555, completionStatus: 'graduated' },
    );
    expect(rest.errors).toEqual({
      student_uuid: ['The student uuid field is required when student external id is not present.'],
      completion_status: ['The selected completion status is invalid.'],
      grade: ['The grade field must not be greater than 10.', 'The grade field must have at most 2 decimal places.'],
      completed_at: ['The completed at field must be a date after or equal to the enrolled at.'],
    });
    expect(graphql.extensions.errors.completedAt).toEqual(rest.errors.completed_at);
  });

  it('reports a cohort’s blank code with its dates out of order, and a certificate’s missing references with its bad URL', async () => {
    const course = await make.course();
    const cohort = await bothStyles(
      '/cohorts',
      'createCohort',
      'CohortInput',
      { course_uuid: course.uuid, code: '  ', start_date: '2025-09-01', end_date: '2025-01-01' },
      { courseUuid: course.uuid, code: '  ', startDate: '2025-09-01', endDate: '2025-01-01' },
    );
    expect(cohort.rest.errors).toEqual({
      code: ['The code field is required.'],
      end_date: ['The end date field must be a date after or equal to the start date.'],
    });
    const certificate = await bothStyles(
      '/certificates',
      'createCertificate',
      'CertificateInput',
      { course_uuid: course.uuid, public_verification_url: 'ftp:nope', expires_at: 'someday' },
      { courseUuid: course.uuid, publicVerificationUrl: 'ftp:nope', expiresAt: 'someday' },
    );
    // file_uuid is no longer an input rule: it is required unless the template draws the certificate (templates-rendering.test.ts).
    // institution_uuid defaults to the course's institution; the student may be named by external id or recipient instead.
    expect(certificate.rest.errors).toEqual({
      student_uuid: ['The student uuid field is required when none of student external id / recipient are present.'],
      public_verification_url: ['The public verification url field must be a valid URL.'],
      expires_at: ['The expires at field must be a valid date.'],
    });
    expect(Object.keys(certificate.graphql.extensions.errors)).toEqual(['studentUuid', 'publicVerificationUrl', 'expiresAt']);
  });

  it('reports every field of a PATCH at once, an explicit null of a required field among them', async () => {
    const student = await make.student();
    const response = await api.rest('PATCH', `/students/${student.uuid}`, { name: null, email: 'nope', social_name: 'x'.repeat(256) });
    expect([response.status, response.body.errors]).toEqual([
      422,
      {
        name: ['The name field is required.'],
        email: ['The email field must be a valid email address.'],
        social_name: ['The social name field must not be greater than 255 characters.'],
      },
    ]);
  });

  it('reports the rules of an input written inline in a GraphQL document, without touching data', async () => {
    const response = await api.graphql('mutation { createInstitution(input: { name: " ", country: "BR", website: "nope" }) { uuid } }');
    expect(response.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: { name: ['The name field is required.'], website: ['The website field must be a valid URL.'] },
    });
    const listed = await api.graphql('{ institutions(where: { name: " " }) { totalCount } }');
    expect(listed.body.data.institutions.totalCount).toBe(0);
  });
});
