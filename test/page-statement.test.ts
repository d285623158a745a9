import type { EntityClass } from '@mikro-orm/core';
import { readPageWithQueryBuilder } from '../src/db/listing.js';
import { type PageRequest, readPageStatement } from '../src/db/page-statement.js';
import { SortOrder } from '../src/db/paging.js';
import { readRowsByUuid, relatedReads } from '../src/db/rows.js';

import { Cohort } from '../src/courses/cohort.entity.js';
import { Course } from '../src/courses/course.entity.js';
import type { TenantScopedEntity } from '../src/db/base.entity.js';
import { scopeToTenant } from '../src/db/tenant-scope.js';
import { Enrollment } from '../src/enrollments/enrollment.entity.js';
import { Student } from '../src/students/student.entity.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService, NO_BACKGROUND_WORK } from './support/service.js';

/**
 * The hand-tuned page statement (db/page-statement.ts) must read exactly what the query builder with
 * the ORM's default filters reads: same rows, same order, same values, same total, same tenant.
 */
let service: TestService;
let acme: ApiClient;
let courseUuid: string;
let cohortUuid: string;
let deletedUuid: string;
/** A row in the middle of the tenant's list, its creation time as PostgreSQL writes it in JSON, and the first row. */
let midUuid: string;
let midCreatedAt: string;
let firstUuid: string;

beforeAll(async () => {
  // No background workers: their polling statements would be counted with the requests'.
  service = await startTestService(NO_BACKGROUND_WORK);
  acme = await signIn(service, 'acme');
  const globex = await signIn(service, 'globex');
  const make = factories(acme);
  const course = await make.course();
  courseUuid = course.uuid;
  cohortUuid = (await make.cohort({ course_uuid: course.uuid, start_date: '2025-02-01', end_date: '2025-12-01' })).uuid;
  for (let index = 0; index < 4; index++) await make.enrollment({ course_uuid: course.uuid, grade: index === 0 ? 7.25 : undefined });
  for (let index = 0; index < 2; index++) await make.enrollment({ course_uuid: course.uuid, cohort_uuid: cohortUuid });
  for (let index = 0; index < 3; index++) await make.enrollment();
  deletedUuid = (await make.enrollment({ course_uuid: course.uuid })).uuid;
  expect((await acme.rest('DELETE', `/enrollments/${deletedUuid}`)).status).toBe(204);
  const [mid] = await service.orm.em
    .getConnection()
    .execute<{ uuid: string; created_at: string }[]>(
      `select uuid, to_jsonb(created_at) #>> '{}' as created_at from enrollments where deleted_at is null order by uuid offset 4 limit 1`,
    );
  [midUuid, midCreatedAt] = [mid!.uuid, mid!.created_at];
  const [head] = await service.orm.em.getConnection().execute<{ uuid: string }[]>(`select uuid from enrollments order by uuid limit 1`);
  firstUuid = head!.uuid;
  const other = factories(globex);
  for (let index = 0; index < 3; index++) await other.enrollment();
}, 120_000);
afterAll(() => service.stop());

async function scopedTo(identifier: string) {
  const [{ uuid }] = await service.orm.em.getConnection().execute<{ uuid: string }[]>('select uuid from tenants where identifier = ?', [identifier]);
  return scopeToTenant(service.orm.em.fork(), uuid!);
}

const withoutTotal = (rows: object[]) => rows.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => key !== 'listTotal')));

async function bothWays<T extends TenantScopedEntity>(entity: EntityClass<T>, request: PageRequest) {
  const em = await scopedTo('acme');
  const prepared = await readPageStatement(em, entity, request);
  const built = await readPageWithQueryBuilder(em, entity, request);
  return { prepared, built };
}

class RolledBack extends Error {}

describe('the hand-tuned page statement', () => {
  const page = (filter: Record<string, unknown>, extra: Partial<PageRequest> = {}): PageRequest => ({
    filter,
    limit: 50,
    offset: 0,
    withTotal: true,
    ...extra,
  });

  it.each([
    ['every live row', () => page({})],
    ['equality on a many-to-one', () => page({ course: courseUuid })],
    ['IS NULL for an explicit null', () => page({ course: courseUuid, cohort: null })],
    ['equality on an enum and a second relation', () => page({ completionStatus: 'enrolled', cohort: cohortUuid })],
    ['a sort column, descending, then uuid', () => page({}, { sort: { property: 'createdAt', order: SortOrder.desc } })],
    ['a window inside the list', () => page({ course: courseUuid }, { limit: 2, offset: 1 })],
    ['a window past the end', () => page({}, { limit: 5, offset: 500 })],
    ['a page without its total', () => page({ course: courseUuid }, { withTotal: false })],
    [
      'range, set and not-null operators',
      () => page({ createdAt: { $gte: new Date(0), $lt: new Date('2100-01-01') }, course: { $in: [courseUuid] }, cohort: { $ne: null } }),
    ],
    ['not equal and IS NULL through $eq', () => page({ completionStatus: { $ne: 'completed' }, completedAt: { $eq: null } })],
    [
      'the rows after a key, descending',
      () => page({}, { sort: { property: 'createdAt', order: SortOrder.desc }, after: { value: midCreatedAt, uuid: midUuid } }),
    ],
    [
      'the rows before a key, read from the end',
      () => page({}, { sort: { property: 'completedAt', order: SortOrder.asc }, before: { value: null, uuid: midUuid }, reverse: true }),
    ],
    ['the rows between two keys in uuid order', () => page({}, { after: { uuid: firstUuid }, before: { uuid: midUuid } })],
  ])('reads %s exactly as the query builder does', async (_name, request) => {
    const { prepared, built } = await bothWays(Enrollment, request());
    expect(prepared).toBeDefined();
    expect(prepared!.keys).toEqual(built.keys);
    expect(prepared!.total).toEqual(built.total);
    expect(withoutTotal(prepared!.rows)).toEqual(withoutTotal(built.rows));
    expect(prepared!.rows.every((row) => row instanceof Enrollment)).toBe(true);
  });

  it('holds live rows of the request’s tenant only', async () => {
    const { prepared } = await bothWays(Enrollment, page({}));
    expect(prepared!.total).toBe(9);
    expect(prepared!.rows.map((row) => row.uuid)).not.toContain(deletedUuid);
    const globex = await readPageStatement(await scopedTo('globex'), Enrollment, page({}));
    expect(globex!.total).toBe(3);
    const acmeUuids = new Set(prepared!.rows.map((row) => row.uuid));
    expect(globex!.rows.filter((row) => acmeUuids.has(row.uuid))).toEqual([]);
  });

  it('brings the selected many-to-ones along exactly as the batched loader reads them, deleted ones too', async () => {
    const em = await scopedTo('acme');
    const plain = (await readPageStatement(em, Enrollment, page({})))!;
    const student = plain.rows[0]!.student;
    // A row deleted since it was referenced still shows where it is referenced (as the loader reads it).
    await service.orm.em.getConnection().execute('update students set deleted_at = now() where uuid = ?', [student]);
    try {
      const related = relatedReads(em, Enrollment, ['uuid', 'grade', 'student', 'course', 'cohort', 'nothing']);
      expect(related.map(({ property, entity }) => [property, entity])).toEqual([
        ['student', Student],
        ['course', Course],
        ['cohort', Cohort],
      ]);
      const read = (await readPageStatement(em, Enrollment, page({}, { related })))!;
      expect(withoutTotal(read.rows)).toEqual(withoutTotal(plain.rows));
      const referenced = related.map(({ entity, property }) => ({
        entity,
        uuids: [...new Set(read.rows.map((row) => (row as Record<string, unknown>)[property] as string | null).filter((uuid) => uuid != null))],
      }));
      const byUuid = (rows: object[]) => [...rows].sort((a, b) => ((a as { uuid: string }).uuid < (b as { uuid: string }).uuid ? -1 : 1));
      const loaded = await readRowsByUuid(em, referenced);
      expect(read.related.map(({ rows }) => byUuid(rows))).toEqual(loaded.map(byUuid));
      expect(read.related.map(({ rows }) => rows.length)).toEqual(referenced.map(({ uuids }) => uuids.length));
      expect(referenced[2]!.uuids).toEqual([cohortUuid]); // six enrollments have no cohort: null, nothing brought
      expect(read.related[0]!.rows.find((row) => (row as Student).uuid === student)).toMatchObject({ deletedAt: expect.any(Date) });
      // One row (a record by uuid) looks each related row up on its own: the same rows, the deleted student too, none for no cohort.
      const uuidIn = (row: object, property: string) => (row as Record<string, unknown>)[property] as string | null;
      const withCohort = read.rows.find((row) => uuidIn(row, 'cohort') !== null)!;
      const withoutCohort = read.rows.find((row) => uuidIn(row, 'cohort') === null)!;
      for (const row of [read.rows[0]!, withCohort, withoutCohort]) {
        const one = (await readPageStatement(em, Enrollment, page({ uuid: row.uuid }, { limit: 1, related })))!;
        expect(withoutTotal(one.rows)).toEqual(withoutTotal([row]));
        const expected = related.map(({ property }, index) =>
          read.related[index]!.rows.filter((relatedRow) => (relatedRow as { uuid: string }).uuid === uuidIn(row, property)),
        );
        expect(one.related.map(({ rows }) => rows)).toEqual(expected);
      }
      expect(uuidIn(read.rows[0]!, 'student')).toBe(student);
    } finally {
      await service.orm.em.getConnection().execute('update students set deleted_at = null where uuid = ?', [student]);
    }
  });

  it('leaves $or and unknown properties to the query builder, and reads inside a transaction on its connection', async () => {
    const em = await scopedTo('acme');
    expect(await readPageStatement(em, Student, page({ $or: [{ email: 'a@example.org' }, { name: 'A' }] }))).toBeUndefined();
    expect(await readPageStatement(em, Student, page({ nickname: 'x' }))).toBeUndefined();
    const contains = page({ name: { $ilike: '%A%' } });
    expect(withoutTotal((await readPageStatement(em, Student, contains))!.rows)).toEqual(
      withoutTotal((await readPageWithQueryBuilder(em, Student, contains)).rows),
    );
    const outside = (await readPageStatement(em, Student, page({})))!.rows.map((row) => row.uuid);
    await em
      .transactional(async (tx) => {
        await tx.getConnection().execute('update students set deleted_at = now() where uuid = ?', [outside[0]], 'run', tx.getTransactionContext());
        const inside = (await readPageStatement(tx, Student, page({})))!.rows.map((row) => row.uuid);
        expect(inside).not.toContain(outside[0]);
        throw new RolledBack();
      })
      .catch((error) => expect(error).toBeInstanceOf(RolledBack));
    expect((await readPageStatement(em, Student, page({})))!.rows.map((row) => row.uuid)).toEqual(outside);
  });

  it('refuses to read outside a tenant scope', async () => {
    await expect(readPageStatement(service.orm.em.fork(), Enrollment, page({}))).rejects.toThrow(/outside a tenant scope/);
  });

  it('counts the list only when the operation selects totalCount, and still tells whether rows follow', async () => {
    const statementsOf = async (query: string) => {
      const before = service.statements.length;
      const response = await acme.graphql(query);
      expect(response.body.errors).toBeUndefined();
      return { data: response.body.data.enrollments, counted: service.statements.slice(before).some((sql) => /count\(|live_row_counts/i.test(sql)) };
    };
    const first = await statementsOf('{ enrollments(first: 2) { pageInfo { hasNextPage } nodes { uuid } } }');
    expect(first).toEqual({ data: { pageInfo: { hasNextPage: true }, nodes: [expect.anything(), expect.anything()] }, counted: false });
    const whole = await statementsOf('{ enrollments(first: 9) { pageInfo { hasNextPage } } }');
    expect(whole).toEqual({ data: { pageInfo: { hasNextPage: false } }, counted: false });
    const fragment = await statementsOf('{ enrollments(first: 2) { ...Total } } fragment Total on EnrollmentConnection { totalCount }');
    expect(fragment).toEqual({ data: { totalCount: 9 }, counted: true });
  });
});
