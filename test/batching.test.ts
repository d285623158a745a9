import { diplomaPdf } from './support/pdf.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { signIn, startTestService, type ApiClient, type TestService, NO_BACKGROUND_WORK } from './support/service.js';

/**
 * Statements an issuance with `finish: true` runs through the ORM (authentication included): the
 * token; the named parties and the source file in one read, the default template, the student's
 * enrollment (none is named here), the course's modules, the signer; then in the transaction the take of the file, both generated files in one insert, the
 * webhook and notification outbox rows, the certificate and its documents. The response reads none.
 * (21 before issue 14.)
 */
const ISSUANCE_STATEMENTS = 12;

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  // Background jobs share the ORM and would add their polling to the statement count.
  service = await startTestService(NO_BACKGROUND_WORK);
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
  it('REST: a page of 100 enrollments with student, course and cohort takes ONE statement (page, total, relations and the token proven active), as a page of 10', async () => {
    const hundred = await statementsOf(restList(100));
    const ten = await statementsOf(restList(10));
    expect(hundred.body.data).toHaveLength(100);
    expect(hundred.body.data.every((row: any) => row.student.email && row.course.name && row.cohort.code)).toBe(true);
    expect(hundred.body.meta.total).toBe(100);
    expect(ten.body.data).toHaveLength(10);
    expect(hundred.count).toBe(1);
    expect(ten.count).toBe(hundred.count);
  });

  it('GraphQL: the same page costs the same statements whatever its size', async () => {
    const hundred = await statementsOf(graphqlList(100));
    const ten = await statementsOf(graphqlList(10));
    expect(hundred.body.data.enrollments.nodes).toHaveLength(100);
    expect(hundred.body.data.enrollments.totalCount).toBe(100);
    expect(hundred.count).toBe(ten.count);
    expect(hundred.count).toBe(1);
  });

  it('relations read in the combined batch show exactly what a lookup of the row itself shows', async () => {
    const fields = {
      student: 'uuid name email dateOfBirth gender socialName createdAt updatedAt',
      course: 'uuid name code description workload isActive createdAt updatedAt',
      cohort: 'uuid code modality startDate endDate createdAt updatedAt',
    };
    const page = await api.graphql(
      `{ enrollments(first: 1) { nodes { grade student { ${fields.student} } course { ${fields.course} } cohort { ${fields.cohort} } } } }`,
    );
    const node = page.body.data.enrollments.nodes[0];
    expect(node.grade).toBe(7);
    for (const [relation, selection] of Object.entries(fields)) {
      const alone = await api.graphql(`query($uuid: ID!) { ${relation}(uuid: $uuid) { ${selection} } }`, { uuid: node[relation].uuid });
      expect(node[relation]).toEqual(alone.body.data[relation]);
    }
  });

  it('a certificate with its student and course reads one statement per level; issuing one stays within its statement budget', async () => {
    const make = factories(api);
    const institution = await make.institution();
    await make.certificate({ institution_uuid: institution.uuid }); // the institution's signing identity is made on first issuance
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student();
    const file = await upload(api, [[await diplomaPdf(`Budget ${Date.now()}`), 'diploma.pdf']]);
    service.statements.length = 0;
    const issued = await api.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      file_uuid: file.body.data[0].uuid,
      finish: true,
    });
    expect(issued.status).toBe(201);
    // Through the ORM (transaction control and file chunks go past onQuery).
    expect(service.statements.length).toBeLessThanOrEqual(ISSUANCE_STATEMENTS);
    const read = await statementsOf(() => api.rest('GET', `/certificates/${issued.body.data.uuid}?includes[student]=1&includes[course]=1`));
    expect(read.body.data.student.uuid).toBe(student.uuid);
    expect(read.body.data.course.uuid).toBe(course.uuid);
    // Token, certificate, then one level (student + course together, its documents), then the documents' files.
    expect(read.count).toBeLessThanOrEqual(5);
  });
});
