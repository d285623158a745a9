import { factories, type Factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
/** Portfolio pages of one student, so a batch destroy under that student can name several. */
let pageOwner: Promise<Record<string, any>> | undefined;

beforeAll(async () => {
  service = await startTestService();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
});
afterAll(() => service.stop());

interface Collection {
  path: (row: Record<string, any>) => string;
  graphql: { one: string; type: string };
  create: () => Promise<Record<string, any>>;
  /** A field PATCH can change, with its new value. */
  patch: [string, unknown];
  /** A required field a PUT without it must report. */
  required: string;
  /** A complete PUT body for `row` (only required fields: optional ones return to their defaults). */
  put?: (row: Record<string, any>) => Record<string, unknown>;
  replaceable: boolean;
  batch: boolean;
  /** Lives under a parent in the path: under another tenant's parent, the list itself is a 404. */
  nested?: boolean;
}

const groupPath = (row: Record<string, any>) => `/courses/${row.course.uuid}/modules/groups`;

const collections: Record<string, Collection> = {
  institutions: {
    put: (row) => ({ name: row.name, country: 'AR' }),
    path: () => '/institutions',
    graphql: { one: 'institution', type: 'Institution' },
    create: () => make.institution(),
    patch: ['name', 'Renamed'],
    required: 'country',
    replaceable: true,
    batch: true,
  },
  modules: {
    put: (row) => ({ name: row.name, institution_uuid: row.institution.uuid }),
    path: () => '/modules',
    graphql: { one: 'module', type: 'Module' },
    create: () => make.module(),
    patch: ['credits', 7],
    required: 'institution_uuid',
    replaceable: true,
    batch: true,
  },
  courses: {
    put: (row) => ({ name: row.name, institution_uuid: row.institution.uuid }),
    path: () => '/courses',
    graphql: { one: 'course', type: 'Course' },
    create: () => make.course(),
    patch: ['workload', 120],
    required: 'name',
    replaceable: true,
    batch: true,
  },
  'module groups': {
    put: (_row) => ({ name: 'Replaced' }),
    path: groupPath,
    graphql: { one: 'moduleGroup', type: 'ModuleGroup' },
    create: () => make.group(),
    patch: ['order', 3],
    required: 'name',
    replaceable: true,
    batch: false,
    nested: true,
  },
  cohorts: {
    put: (row) => ({ code: row.code, course_uuid: row.course.uuid }),
    path: () => '/cohorts',
    graphql: { one: 'cohort', type: 'Cohort' },
    create: () => make.cohort(),
    patch: ['modality', 'hybrid'],
    required: 'code',
    replaceable: true,
    batch: true,
  },
  students: {
    path: () => '/students',
    graphql: { one: 'student', type: 'Student' },
    create: () => make.student(),
    patch: ['social_name', 'Sam'],
    required: 'email',
    replaceable: false,
    batch: true,
  },
  enrollments: {
    put: (row) => ({ student_uuid: row.student.uuid, course_uuid: row.course.uuid, enrolled_at: '2025-04-01' }),
    path: () => '/enrollments',
    graphql: { one: 'enrollment', type: 'Enrollment' },
    create: () => make.enrollment(),
    patch: ['grade', 8.5],
    required: 'enrolled_at',
    replaceable: true,
    batch: true,
  },
  'portfolio pages': {
    put: (row) => ({ slug: row.slug }),
    path: (row) => `/students/${row.student.uuid}/pages`,
    graphql: { one: 'portfolioPage', type: 'PortfolioPage' },
    create: async () => make.page((await (pageOwner ??= make.student())).uuid),
    patch: ['bio', 'Data engineer'],
    required: 'slug',
    replaceable: true,
    batch: true,
    nested: true,
  },
  'certificate templates': {
    put: (row) => ({ name: row.name, version: '3', path: row.path, institution_uuid: row.institution.uuid }),
    path: () => '/certificate-templates',
    graphql: { one: 'certificateTemplate', type: 'CertificateTemplate' },
    create: () => make.template(),
    patch: ['version', '2.0'],
    required: 'path',
    replaceable: true,
    batch: true,
  },
};

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const uuids = (body: { data: { uuid: string }[] }) => body.data.map((row) => row.uuid);

describe.each(Object.entries(collections))('%s', (_name, collection) => {
  it('create answers 201 with the record, which GET and the list return too', async () => {
    const row = await collection.create();
    expect(row).toMatchObject({ uuid: expect.any(String), created_at: expect.stringMatching(TIMESTAMP), updated_at: expect.stringMatching(TIMESTAMP) });
    const fetched = await acme.rest('GET', `${collection.path(row)}/${row.uuid}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual(row);
    const list = await acme.rest('GET', `${collection.path(row)}?per_page=100`);
    expect(list.body.data).toContainEqual(row);
  });

  it('PATCH changes only the field sent', async () => {
    const row = await collection.create();
    const [field, value] = collection.patch;
    const response = await acme.rest('PATCH', `${collection.path(row)}/${row.uuid}`, { [field]: value });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ ...row, [field]: value, updated_at: expect.stringMatching(TIMESTAMP) });
  });

  it('PUT requires every required field (or is not offered)', async () => {
    const row = await collection.create();
    const response = await acme.rest('PUT', `${collection.path(row)}/${row.uuid}`, {});
    if (!collection.replaceable) {
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).not.toContain('PUT');
      return;
    }
    expect(response.status).toBe(422);
    expect(response.body.errors[collection.required]).toEqual([expect.stringContaining('field is required')]);
    const replaced = await acme.rest('PUT', `${collection.path(row)}/${row.uuid}`, collection.put!(row));
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject(collection.put!(row).name ? { uuid: row.uuid, name: collection.put!(row).name } : { uuid: row.uuid });
  });

  it('DELETE is soft: 204, then 404 and gone from the list', async () => {
    const row = await collection.create();
    expect((await acme.rest('DELETE', `${collection.path(row)}/${row.uuid}`)).status).toBe(204);
    expect((await acme.rest('GET', `${collection.path(row)}/${row.uuid}`)).status).toBe(404);
    expect(uuids((await acme.rest('GET', `${collection.path(row)}?per_page=100`)).body)).not.toContain(row.uuid);
  });

  it('batch destroy is all or nothing (where documented)', async () => {
    const [a, b] = [await collection.create(), await collection.create()];
    const path = `${collection.path(a)}/batch/destroy`;
    if (!collection.batch) {
      expect((await acme.rest('DELETE', path, { uuids: [a.uuid] })).status).toBe(404);
      return;
    }
    const refused = await acme.rest('DELETE', path, { uuids: [a.uuid, b.uuid, '01a1fbd9-0000-7000-8000-000000000000'] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.uuids).toHaveLength(1);
    expect((await acme.rest('GET', `${collection.path(a)}/${a.uuid}`)).status).toBe(200);
    expect((await acme.rest('DELETE', path, { uuids: [a.uuid, b.uuid] })).status).toBe(204);
    expect((await acme.rest('GET', `${collection.path(b)}/${b.uuid}`)).status).toBe(404);
  });

  it('is invisible and untouchable for another tenant: 404 on GET, PATCH, PUT, DELETE and absent from its list', async () => {
    const row = await collection.create();
    const item = `${collection.path(row)}/${row.uuid}`;
    expect((await globex.rest('GET', item)).status).toBe(404);
    expect((await globex.rest('PATCH', item, { [collection.patch[0]]: collection.patch[1] })).status).toBe(404);
    if (collection.replaceable) expect((await globex.rest('PUT', item, collection.put!(row))).status).toBe(404);
    expect((await globex.rest('DELETE', item)).status).toBe(404);
    const list = await globex.rest('GET', `${collection.path(row)}?per_page=100`);
    // A nested collection under another tenant's parent does not exist at all.
    if (collection.nested) expect(list.status).toBe(404);
    else expect(uuids(list.body)).not.toContain(row.uuid);
    const graphql = await globex.graphql(`query($uuid: ID!) { ${collection.graphql.one}(uuid: $uuid) { uuid } }`, { uuid: row.uuid });
    expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await acme.rest('GET', item)).body.data).toEqual(row);
  });

  it('reads the same record over GraphQL, in camelCase', async () => {
    const row = await collection.create();
    const response = await acme.graphql(`query($uuid: ID!) { ${collection.graphql.one}(uuid: $uuid) { __typename uuid createdAt } }`, { uuid: row.uuid });
    expect(response.body.data[collection.graphql.one]).toEqual({ __typename: collection.graphql.type, uuid: row.uuid, createdAt: row.created_at });
  });
});
