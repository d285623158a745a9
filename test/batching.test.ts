import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  // Background jobs share the ORM and would add their polling to the statement count.
  service = await startTestService({ NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0', JOB_WORKER: 'off', IDEMPOTENCY_SWEEP_MS: '0' });
  api = await signIn(service, 'acme');
  const make = factories(api);
  const institution = await make.institution();
  const courses = [
    await make.course({ institution_uuid: institution.uuid }),
    await make.course({ institution_uuid: institution.uuid }),
    await make.course({ institution_uuid: institution.uuid }),
  ];
  const cohorts = await Promise.all(courses.map((course) => make.cohort({ course_uuid: course.uuid })));
  for (let batch = 0; batch < 10; batch++) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, index) => {
        const course = (batch * 10 + index) % 3;
        return make.enrollment({ course_uuid: courses[course]!.uuid, cohort_uuid: cohorts[course]!.uuid, grade: 7 });
      }),
    );
  }
});
afterAll(() => service.stop());

/** The statements one request runs, from the first after the request starts. */
async function statementsOf(request: () => Promise<{ status: number; body: any }>): Promise<{ count: number; body: any }> {
  service.statements.length = 0;
  const response = await request();
  expect(response.status).toBe(200);
  return { count: service.statements.length, body: response.body };
}

const restList = (perPage: number) => () => api.rest('GET', `/enrollments?per_page=${perPage}&includes[student]=1&includes[course]=1&includes[cohort]=1`);
const graphqlList = (first: number) => () =>
  api.graphql(
    `query($first: Int) { enrollments(first: $first) { totalCount nodes { uuid grade student { uuid name email } course { uuid name } cohort { uuid code } } } }`,
    { first },
  );

describe('relation loading is batched', () => {
  it('REST: a page of 100 enrollments with student, course and cohort takes at most 5 statements, as many as a page of 10', async () => {
    const hundred = await statementsOf(restList(100));
    const ten = await statementsOf(restList(10));
    expect(hundred.body.data).toHaveLength(100);
    expect(hundred.body.data.every((row: any) => row.student.email && row.course.name && row.cohort.code)).toBe(true);
    expect(hundred.body.meta.total).toBe(100);
    expect(ten.body.data).toHaveLength(10);
    expect(hundred.count).toBeLessThanOrEqual(5);
    expect(ten.count).toBe(hundred.count);
  });

  it('GraphQL: the same page costs the same statements whatever its size', async () => {
    const hundred = await statementsOf(graphqlList(100));
    const ten = await statementsOf(graphqlList(10));
    expect(hundred.body.data.enrollments.nodes).toHaveLength(100);
    expect(hundred.body.data.enrollments.totalCount).toBe(100);
    expect(hundred.count).toBe(ten.count);
    expect(hundred.count).toBeLessThanOrEqual(5);
  });
});
