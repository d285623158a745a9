import { factories, type Factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
let other: Factories;

beforeAll(async () => {
  service = await startTestService();
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
  other = factories(globex);
});
afterAll(() => service.stop());

const names = (body: { data: { name: string }[] }) => body.data.map((row) => row.name);

describe('modules', () => {
  it('keep codes unique per institution, case-insensitively, among live modules only', async () => {
    const institution = await make.institution();
    const first = await make.module({ institution_uuid: institution.uuid, code: 'MAT-101' });
    const clash = await acme.rest('POST', '/modules', { name: 'Again', code: 'mat-101', institution_uuid: institution.uuid });
    expect([clash.status, clash.body.errors]).toEqual([422, { code: ['The code has already been taken.'] }]);
    await make.module({ code: 'MAT-101' }); // another institution: fine
    await acme.rest('DELETE', `/modules/${first.uuid}`);
    await make.module({ institution_uuid: institution.uuid, code: 'MAT-101' }); // the deleted one no longer holds it
  });

  it('enforce the documented limits', async () => {
    const institution = await make.institution();
    const response = await acme.rest('POST', '/modules', {
      name: 'x'.repeat(151),
      code: 'x'.repeat(21),
      workload: -1,
      credits: 1.5,
      level: 'doctorate',
      institution_uuid: institution.uuid,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      name: ['The name field must not be greater than 150 characters.'],
      code: ['The code field must not be greater than 20 characters.'],
      workload: ['The workload field must be at least 0.'],
      credits: ['The credits field must be an integer.'],
      level: ['The selected level is invalid.'],
    });
  });

  it('refuse an institution of another tenant as if it did not exist', async () => {
    const foreign = await other.institution();
    const response = await acme.rest('POST', '/modules', { name: 'Spy', institution_uuid: foreign.uuid });
    expect([response.status, response.body.errors]).toEqual([422, { institution_uuid: ['The selected institution uuid is invalid.'] }]);
  });

  it('refuse an explicit null for a required field on PATCH', async () => {
    const module = await make.module();
    const response = await acme.rest('PATCH', `/modules/${module.uuid}`, { name: null });
    expect([response.status, response.body.errors]).toEqual([422, { name: ['The name field is required.'] }]);
  });
});

describe('students', () => {
  it('keep emails unique per tenant, case-insensitively, and store them lowercase', async () => {
    const student = await make.student({ email: 'Maria.Silva@Example.org' });
    expect(student.email).toBe('maria.silva@example.org');
    const clash = await acme.rest('POST', '/students', { name: 'Other', email: 'MARIA.SILVA@example.org', date_of_birth: '1999-01-01' });
    expect([clash.status, clash.body.errors]).toEqual([422, { email: ['The email has already been taken.'] }]);
    await other.student({ email: 'maria.silva@example.org' }); // another tenant: fine
  });

  it('are found by where[user][email], whatever the case', async () => {
    const student = await make.student({ email: 'lookup@example.org' });
    const response = await acme.rest('GET', '/students?where[user][email]=LookUp@Example.org');
    expect(response.body.data.map((row: { uuid: string }) => row.uuid)).toEqual([student.uuid]);
  });

  it('validate email and date of birth', async () => {
    const response = await acme.rest('POST', '/students', { name: 'Bad', email: 'not-an-email', date_of_birth: '2024-02-31' });
    expect(response.status).toBe(422);
    expect(response.body.errors.date_of_birth).toEqual([expect.stringContaining('date of birth')]);
    const future = await acme.rest('POST', '/students', { name: 'Bad', email: 'future@example.org', date_of_birth: '2999-01-01' });
    expect(future.body.errors).toEqual({ date_of_birth: ['The date of birth field must be a date before today.'] });
    const email = await acme.rest('POST', '/students', { name: 'Bad', email: 'not-an-email', date_of_birth: '2000-01-01' });
    expect(email.body.errors).toEqual({ email: ['The email field must be a valid email address.'] });
  });

  it('have no PUT, as documented', async () => {
    const student = await make.student();
    const put = await acme.rest('PUT', `/students/${student.uuid}`, { name: 'X', email: 'x@example.org', date_of_birth: '2000-01-01' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, PATCH, DELETE']);
    const graphql = await acme.graphql('mutation { replaceStudent(uuid: "x", input: {}) { uuid } }');
    expect(graphql.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('include their enrollments on request', async () => {
    const student = await make.student();
    const enrollment = await make.enrollment({ student_uuid: student.uuid, grade: 7 });
    const response = await acme.rest('GET', `/students/${student.uuid}?includes[enrollments]=1`);
    expect(response.body.data.enrollments).toEqual([expect.objectContaining({ uuid: enrollment.uuid, grade: 7, course: enrollment.course })]);
    const unknown = await acme.rest('GET', `/students/${student.uuid}?includes[diplomas]=1`);
    expect([unknown.status, unknown.body.errors.includes]).toEqual([
      422,
      ['Unknown relation(s) diplomas; this resource can include: enrollments, certificates.'],
    ]);
  });

  it('include their certificates on request, in both styles (the spec names includes[certificates])', async () => {
    const student = await make.student();
    const other = await make.student();
    const issued = await make.certificate({ student_uuid: student.uuid });
    const draft = await make.certificate({ student_uuid: student.uuid, finish: false });
    await make.certificate({ student_uuid: other.uuid });
    const response = await acme.rest('GET', `/students?where[email]=${encodeURIComponent(student.email)}&includes[certificates]=1`);
    expect(response.status).toBe(200);
    const certificates = response.body.data[0].certificates;
    expect(certificates.map((certificate: { uuid: string }) => certificate.uuid).sort()).toEqual([issued.uuid, draft.uuid].sort());
    expect(certificates.find((certificate: { uuid: string }) => certificate.uuid === issued.uuid)).toMatchObject({ status: 'issued', course: issued.course });
    expect(certificates[0]).not.toHaveProperty('student');
    const graphql = await acme.graphql(`{ student(uuid: "${student.uuid}") { certificates { totalCount nodes { uuid status } } } }`);
    expect(graphql.body.data.student.certificates.totalCount).toBe(2);
    expect(graphql.body.data.student.certificates.nodes).toHaveLength(2);
  });
});

describe('enrollments', () => {
  it('accept grades from 0 to 10 with at most two decimals', async () => {
    expect((await make.enrollment({ grade: 0 })).grade).toBe(0);
    expect((await make.enrollment({ grade: 10 })).grade).toBe(10);
    expect((await make.enrollment({ grade: 9.75 })).grade).toBe(9.75);
    const student = await make.student();
    const course = await make.course();
    for (const [grade, message] of [
      [10.01, 'The grade field must not be greater than 10.'],
      [-0.5, 'The grade field must be at least 0.'],
      [8.333, 'The grade field must have at most 2 decimal places.'],
    ] as const) {
      const response = await acme.rest('POST', '/enrollments', { student_uuid: student.uuid, course_uuid: course.uuid, enrolled_at: '2025-01-01', grade });
      expect([response.status, response.body.errors]).toEqual([422, { grade: [message] }]);
    }
  });

  it("require the cohort to be one of the course's", async () => {
    const course = await make.course();
    const elsewhere = await make.cohort();
    const response = await acme.rest('POST', '/enrollments', {
      student_uuid: (await make.student()).uuid,
      course_uuid: course.uuid,
      cohort_uuid: elsewhere.uuid,
      enrolled_at: '2025-01-01',
    });
    expect([response.status, response.body.errors]).toEqual([422, { cohort_uuid: ['The selected cohort does not belong to the enrollment’s course.'] }]);
    const own = await make.cohort({ course_uuid: course.uuid });
    const ok = await make.enrollment({ course_uuid: course.uuid, cohort_uuid: own.uuid });
    expect(ok.cohort).toEqual({ uuid: own.uuid, code: own.code });
  });

  it('report every missing required field', async () => {
    const response = await acme.rest('POST', '/enrollments', {});
    expect(response.body.errors).toEqual({
      student_uuid: ['The student uuid field is required when student external id is not present.'],
      course_uuid: ['The course uuid field is required when course external id is not present.'],
      enrolled_at: ['The enrolled at field is required.'],
    });
  });

  it('filter by relation and status, and include full related records', async () => {
    const course = await make.course();
    const cohort = await make.cohort({ course_uuid: course.uuid });
    const student = await make.student({ social_name: 'Sol' });
    const done = await make.enrollment({
      course_uuid: course.uuid,
      cohort_uuid: cohort.uuid,
      student_uuid: student.uuid,
      completion_status: 'completed',
      completed_at: '2025-12-01',
    });
    await make.enrollment({ course_uuid: course.uuid });
    const response = await acme.rest(
      'GET',
      `/enrollments?where[course_uuid]=${course.uuid}&where[completion_status]=completed&includes[student]=1&includes[cohort]=1`,
    );
    expect(response.body.data).toHaveLength(1);
    expect(response.body.data[0]).toMatchObject({
      uuid: done.uuid,
      completed_at: '2025-12-01T00:00:00.000000Z',
      student: { uuid: student.uuid, email: student.email, social_name: 'Sol', date_of_birth: '2001-02-03' },
      cohort: { uuid: cohort.uuid, code: cohort.code, modality: null },
      course: { uuid: course.uuid, name: course.name },
    });
    const noCohort = await acme.rest('GET', `/enrollments?where[course_uuid]=${course.uuid}&where[cohort_uuid]=null`);
    expect(noCohort.body.meta.total).toBe(1);
    const bad = await acme.rest('GET', '/enrollments?where[course_uuid]=nope');
    expect([bad.status, bad.body.errors]).toEqual([422, { 'where.course_uuid': ['The where courseUuid must be a valid UUID.'] }]);
  });

  it('keep showing a soft-deleted student and course by name', async () => {
    const enrollment = await make.enrollment();
    await acme.rest('DELETE', `/students/${enrollment.student.uuid}`);
    const response = await acme.rest('GET', `/enrollments/${enrollment.uuid}`);
    expect(response.body.data.student).toEqual(enrollment.student);
  });
});

describe('courses and their modules', () => {
  it('attach modules into groups at positions, move attached ones, and detach them', async () => {
    const institution = await make.institution();
    const course = await make.course({ institution_uuid: institution.uuid });
    const [core, electives] = [await make.group(course.uuid, { name: 'Core', order: 1 }), await make.group(course.uuid, { name: 'Electives', order: 2 })];
    const [a, b, c] = [
      await make.module({ institution_uuid: institution.uuid, name: 'A' }),
      await make.module({ institution_uuid: institution.uuid, name: 'B' }),
      await make.module({ institution_uuid: institution.uuid, name: 'C' }),
    ];

    const attached = await acme.rest('POST', `/courses/${course.uuid}/attach/modules`, {
      modules: [
        { module_uuid: c.uuid, course_module_group_uuid: electives.uuid },
        { module_uuid: a.uuid, course_module_group_uuid: core.uuid },
        { module_uuid: b.uuid, course_module_group_uuid: core.uuid },
      ],
    });
    expect(attached.status).toBe(200);
    const layout = (body: any) => body.data.modules.map((row: any) => `${row.group?.name ?? '-'}:${row.order}:${row.module.name}`);
    expect(layout(attached.body)).toEqual(['Core:1:A', 'Core:2:B', 'Electives:1:C']);

    const moved = await acme.rest('POST', `/courses/${course.uuid}/attach/modules`, {
      module_uuid: a.uuid,
      course_module_group_uuid: electives.uuid,
      order: 0,
    });
    expect(layout(moved.body)).toEqual(['Core:2:B', 'Electives:0:A', 'Electives:1:C']);

    const detached = await acme.rest('POST', `/courses/${course.uuid}/detach/modules`, { module_uuids: [c.uuid] });
    expect(layout(detached.body)).toEqual(['Core:2:B', 'Electives:0:A']);
    const again = await acme.rest('POST', `/courses/${course.uuid}/detach/modules`, { module_uuids: [c.uuid] });
    expect([again.status, again.body.errors]).toEqual([422, { module_uuids: [`These modules are not attached to the course: ${c.uuid}.`] }]);

    const graphql = await acme.graphql('query($uuid: ID!) { course(uuid: $uuid) { modules { order module { name } group { name } } moduleGroups { name } } }', {
      uuid: course.uuid,
    });
    expect(graphql.body.data.course).toEqual({
      modules: [
        { order: 2, module: { name: 'B' }, group: { name: 'Core' } },
        { order: 0, module: { name: 'A' }, group: { name: 'Electives' } },
      ],
      moduleGroups: [{ name: 'Core' }, { name: 'Electives' }],
    });
  });

  it('refuse modules of another institution and groups of another course, all or nothing', async () => {
    const course = await make.course();
    const ownModule = await make.module({ institution_uuid: course.institution.uuid });
    const foreignModule = await make.module();
    const otherGroup = await make.group();
    const response = await acme.rest('POST', `/courses/${course.uuid}/attach/modules`, {
      modules: [
        { module_uuid: ownModule.uuid },
        { module_uuid: foreignModule.uuid },
        { module_uuid: ownModule.uuid, course_module_group_uuid: otherGroup.uuid },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'modules.1.module_uuid': ['The module belongs to another institution.'],
      'modules.2.course_module_group_uuid': ['The selected course module group uuid is invalid.'],
    });
    expect((await acme.rest('GET', `/courses/${course.uuid}`)).body.data.modules).toEqual([]);
  });

  it('nest module groups under their course: another course path is a 404', async () => {
    const group = await make.group();
    const otherCourse = await make.course();
    expect((await acme.rest('GET', `/courses/${otherCourse.uuid}/modules/groups/${group.uuid}`)).status).toBe(404);
    expect((await acme.rest('PATCH', `/courses/${otherCourse.uuid}/modules/groups/${group.uuid}`, { name: 'X' })).status).toBe(404);
    expect((await acme.rest('DELETE', `/courses/${otherCourse.uuid}/modules/groups/${group.uuid}`)).status).toBe(404);
    expect((await acme.rest('GET', `/courses/${otherCourse.uuid}/modules/groups`)).body.data).toEqual([]);
    expect((await acme.rest('GET', `/courses/${group.course.uuid}/modules/groups/${group.uuid}`)).body.data.uuid).toBe(group.uuid);
  });

  it('keep referencing a soft-deleted institution by name', async () => {
    const institution = await make.institution({ name: 'Closing Down' });
    const course = await make.course({ institution_uuid: institution.uuid });
    const module = await make.module({ institution_uuid: institution.uuid });
    expect((await acme.rest('DELETE', `/institutions/${institution.uuid}`)).status).toBe(204);
    expect((await acme.rest('GET', `/courses/${course.uuid}`)).body.data.institution).toEqual({ uuid: institution.uuid, name: 'Closing Down' });
    expect((await acme.rest('GET', `/modules/${module.uuid}`)).body.data.institution).toEqual({ uuid: institution.uuid, name: 'Closing Down' });
  });
});

describe('cohorts', () => {
  it('keep codes unique within a course and dates in order', async () => {
    const course = await make.course();
    await make.cohort({ course_uuid: course.uuid, code: '2025-A' });
    const clash = await acme.rest('POST', '/cohorts', { course_uuid: course.uuid, code: '2025-a' });
    expect([clash.status, clash.body.errors]).toEqual([422, { code: ['The code has already been taken.'] }]);
    const dates = await acme.rest('POST', '/cohorts', { course_uuid: course.uuid, code: 'B', start_date: '2025-06-01', end_date: '2025-01-01' });
    expect(dates.body.errors).toEqual({ end_date: ['The end date field must be a date after or equal to the start date.'] });
    const modality = await acme.rest('POST', '/cohorts', { course_uuid: course.uuid, code: 'C', modality: 'in_person' });
    expect(modality.body.errors).toEqual({ modality: ['The selected modality is invalid.'] });
  });
});

describe('certificate templates', () => {
  it('keep at most one default per institution: setting one clears the others', async () => {
    const institution = await make.institution();
    const first = await make.template({ institution_uuid: institution.uuid, is_default: true, name: 'First' });
    const second = await make.template({ institution_uuid: institution.uuid, is_default: true, name: 'Second' });
    const elsewhere = await make.template({ is_default: true, name: 'Elsewhere' });
    const defaults = await acme.rest('GET', `/certificate-templates?where[institution_uuid]=${institution.uuid}&where[is_default]=true`);
    expect(names(defaults.body)).toEqual(['Second']);
    expect((await acme.rest('GET', `/certificate-templates/${first.uuid}`)).body.data.is_default).toBe(false);
    expect((await acme.rest('GET', `/certificate-templates/${elsewhere.uuid}`)).body.data.is_default).toBe(true);
    await acme.rest('PATCH', `/certificate-templates/${first.uuid}`, { is_default: true });
    expect((await acme.rest('GET', `/certificate-templates/${second.uuid}`)).body.data.is_default).toBe(false);
  });

  it('store design_config exactly as given, keys untouched', async () => {
    const config = { canvas: { widthPx: 1200, 'bg-color': '#fff' }, layers: [{ type: 'text', font_size: 12 }] };
    const template = await make.template({ design_config: config });
    expect(template.design_config).toEqual(config);
    const graphql = await acme.graphql('query($uuid: ID!) { certificateTemplate(uuid: $uuid) { designConfig } }', { uuid: template.uuid });
    expect(graphql.body.data.certificateTemplate.designConfig).toEqual(config);
  });
});
