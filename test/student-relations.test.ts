import { factories } from './support/factories.js';
import { NO_BACKGROUND_WORK, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

/**
 * Student.certificates and Student.enrollments are connections (issue 31): a page of each student's
 * rows, batched across the students of a page, tenant-scoped, and the same rows REST includes.
 */
let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let students: Record<string, any>[];
/** The first student's certificates (3 issued, 2 drafts) and enrollments (3), by uuid. */
let certificates: string[];
let enrollments: string[];

beforeAll(async () => {
  // Background jobs share the ORM and would add their polling to the statement count.
  service = await startTestService(NO_BACKGROUND_WORK);
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  const make = factories(acme);
  const institution = await make.institution();
  const course = await make.course({ institution_uuid: institution.uuid });
  students = [];
  for (let index = 0; index < 20; index++) students.push(await make.student());
  const first = students[0]!.uuid;
  certificates = [];
  for (const finish of [true, true, true, false, false]) {
    certificates.push((await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: first, finish })).uuid);
  }
  enrollments = [];
  for (let index = 0; index < 3; index++) enrollments.push((await make.enrollment({ student_uuid: first, course_uuid: course.uuid })).uuid);
  // Every other student has one enrollment, so each page of students has relation rows to load.
  await Promise.all(students.slice(1).map((student) => make.enrollment({ student_uuid: student.uuid, course_uuid: course.uuid })));
  // Another tenant's rows: a student of its own with a certificate and an enrollment.
  const other = factories(globex);
  const stranger = await other.student();
  await other.certificate({ student_uuid: stranger.uuid });
  await other.enrollment({ student_uuid: stranger.uuid });
  certificates.sort();
  enrollments.sort();
}, 120_000);
afterAll(() => service.stop());

const PAGE = `query($first: Int) { students(first: $first) { nodes { uuid
  certificates(first: 2) { totalCount nodes { uuid } pageInfo { hasNextPage endCursor } }
  enrollments(first: 2) { nodes { uuid } } } } }`;

async function statementsOf(first: number): Promise<{ count: number; body: any }> {
  service.statements.length = 0;
  const response = await acme.graphql(PAGE, { first });
  expect(response.status).toBe(200);
  expect(response.body.errors).toBeUndefined();
  return { count: service.statements.length, body: response.body };
}

describe('Student.certificates and Student.enrollments', () => {
  it('cost the same statements for a page of 20 students as for a page of 2', async () => {
    const two = await statementsOf(2);
    const twenty = await statementsOf(20);
    expect(two.body.data.students.nodes).toHaveLength(2);
    expect(twenty.body.data.students.nodes).toHaveLength(20);
    // The page; the certificates of every student; their totals; the enrollments of every student.
    expect(twenty.count).toBe(4);
    expect(twenty.count).toBe(two.count);
    const [first, second] = twenty.body.data.students.nodes;
    expect(first.certificates).toMatchObject({ totalCount: 5, nodes: certificates.slice(0, 2).map((uuid) => ({ uuid })), pageInfo: { hasNextPage: true } });
    expect(first.enrollments.nodes).toEqual(enrollments.slice(0, 2).map((uuid) => ({ uuid })));
    expect(second.certificates).toEqual({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
    expect(second.enrollments.nodes).toHaveLength(1);
  });

  it('page with after through every certificate of a student once, drafts included', async () => {
    const query = `query($uuid: ID!, $after: String) { student(uuid: $uuid) {
      certificates(first: 2, after: $after) { totalCount edges { cursor node { uuid status } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`;
    const seen: string[] = [];
    const statuses: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const response = await acme.graphql(query, { uuid: students[0]!.uuid, after });
      const connection = response.body.data.student.certificates;
      expect(connection.totalCount).toBe(5);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...connection.edges.map((edge: any) => edge.node.uuid));
      statuses.push(...connection.edges.map((edge: any) => edge.node.status));
      if (!connection.pageInfo.hasNextPage) break;
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(certificates);
    expect(statuses.sort()).toEqual(['draft', 'draft', 'issued', 'issued', 'issued']);
  });

  it('take the cursors of the root list in uuid order, and refuse a cursor of another order', async () => {
    const root = await acme.graphql(`{ certificates(first: 1, where: { studentUuid: "${students[0]!.uuid}" }) { pageInfo { endCursor } } }`);
    const after = root.body.data.certificates.pageInfo.endCursor;
    const relation = await acme.graphql('query($uuid: ID!, $after: String) { student(uuid: $uuid) { certificates(after: $after) { nodes { uuid } } } }', {
      uuid: students[0]!.uuid,
      after,
    });
    expect(relation.body.data.student.certificates.nodes.map((node: any) => node.uuid)).toEqual(certificates.slice(1));
    const sorted = await acme.graphql('{ certificates(first: 1, sort: { column: created_at }) { pageInfo { endCursor } } }');
    const refused = await acme.graphql('query($uuid: ID!, $after: String) { student(uuid: $uuid) { certificates(after: $after) { nodes { uuid } } } }', {
      uuid: students[0]!.uuid,
      after: sorted.body.data.certificates.pageInfo.endCursor,
    });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors[0].extensions.errors).toEqual({ after: ['The after cursor is invalid.'] });
  });

  it('never show another tenant’s rows: its student is not found, and its relations never join ours', async () => {
    const theirs = await globex.graphql('{ students { nodes { uuid certificates { totalCount nodes { uuid } } enrollments { totalCount nodes { uuid } } } } }');
    expect(theirs.body.data.students.nodes).toHaveLength(1);
    const [stranger] = theirs.body.data.students.nodes;
    expect(stranger.certificates.totalCount).toBe(1);
    expect(stranger.enrollments.totalCount).toBe(1);
    const foreign = await acme.graphql('query($uuid: ID!) { student(uuid: $uuid) { certificates { totalCount } } }', { uuid: stranger.uuid });
    expect(foreign.body.data?.student ?? null).toBeNull();
    const ours = await acme.graphql(
      '{ students(first: 100) { nodes { certificates(first: 100) { nodes { uuid } } enrollments(first: 100) { nodes { uuid } } } } }',
    );
    const uuids = ours.body.data.students.nodes.flatMap((node: any) => [...node.certificates.nodes, ...node.enrollments.nodes].map((row: any) => row.uuid));
    expect(uuids).not.toContain(stranger.certificates.nodes[0].uuid);
    expect(uuids).not.toContain(stranger.enrollments.nodes[0].uuid);
  });

  it('REST includes[certificates] and includes[enrollments] nest the arrays on a list and on one student', async () => {
    const list = await acme.rest('GET', '/students?per_page=20&includes[certificates]=1&includes[enrollments]=1');
    expect(list.status).toBe(200);
    const first = list.body.data.find((student: any) => student.uuid === students[0]!.uuid);
    expect(first.certificates.map((row: any) => row.uuid)).toEqual(certificates);
    expect(first.certificates[0]).toMatchObject({ status: expect.any(String), course: { uuid: expect.any(String), name: expect.any(String) } });
    expect(first.certificates[0]).not.toHaveProperty('student');
    expect(first.enrollments.map((row: any) => row.uuid)).toEqual(enrollments);
    expect(list.body.data.every((student: any) => Array.isArray(student.certificates) && Array.isArray(student.enrollments))).toBe(true);
    const one = await acme.rest('GET', `/students/${students[0]!.uuid}?includes[certificates]=1`);
    expect(one.status).toBe(200);
    expect(one.body.data.certificates.map((row: any) => row.uuid)).toEqual(certificates);
    expect(one.body.data).not.toHaveProperty('enrollments');
    const foreign = await globex.rest('GET', `/students/${students[0]!.uuid}?includes[certificates]=1`);
    expect(foreign.status).toBe(404);
  });
});
