/** Set-based seeding of one tenant's catalogue for the list benchmark: a few statements, one transaction. */
import pg from 'pg';

export const COURSES = 50;
export const COHORTS_PER_COURSE = 4;
export const STUDENTS = 10_000;
export const ENROLLMENTS = 20_000;

const INSTITUTION = `
  insert into institutions (uuid, created_at, updated_at, tenant_uuid, name, country)
  values (gen_random_uuid(), now(), now(), $1::uuid, 'Bench University', 'Brazil') returning uuid`;

const COURSES_SQL = `
  insert into courses (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name, code, description, workload, is_active)
  select gen_random_uuid(), now(), now(), $1::uuid, $2::uuid, 'Course ' || n, 'C' || lpad(n::text, 3, '0'),
    'The programme of course ' || n || ', in some detail.', 360 + 20 * n, n % 10 <> 0
  from generate_series(1, ${COURSES}) n`;

const COHORTS_SQL = `
  insert into cohorts (uuid, created_at, updated_at, tenant_uuid, course_uuid, code, modality, start_date, end_date)
  select gen_random_uuid(), now(), now(), $1::uuid, c.uuid, c.code || '-' || k,
    (array['presential', 'remote', 'hybrid'])[1 + k % 3]::cohort_modality,
    timestamptz '2025-02-01' + k * interval '6 months', timestamptz '2028-12-15' + k * interval '6 months'
  from courses c cross join generate_series(1, ${COHORTS_PER_COURSE}) k
  where c.tenant_uuid = $1::uuid`;

const STUDENTS_SQL = `
  insert into students (uuid, created_at, updated_at, tenant_uuid, name, email, date_of_birth, gender, social_name)
  select gen_random_uuid(), now(), now(), $1::uuid, 'Student Number ' || n, 'student' || n || '@bench.test',
    date '1980-01-01' + n % 9000, (array['female', 'male', null])[1 + n % 3], case when n % 10 = 0 then 'Social ' || n end
  from generate_series(1, ${STUDENTS}) n`;

// Enrollment i: student i mod 10,000, course i mod 50, one of that course's cohorts; a third completed.
const ENROLLMENTS_SQL = `
  with s as (select uuid, row_number() over (order by uuid) - 1 as n from students where tenant_uuid = $1::uuid),
       c as (select uuid, row_number() over (order by uuid) - 1 as n from courses where tenant_uuid = $1::uuid),
       h as (select uuid, course_uuid, row_number() over (partition by course_uuid order by uuid) - 1 as n from cohorts where tenant_uuid = $1::uuid)
  insert into enrollments (uuid, created_at, updated_at, tenant_uuid, student_uuid, course_uuid, cohort_uuid,
    completion_status, grade, enrolled_at, completed_at)
  select gen_random_uuid(), now(), now(), $1::uuid, s.uuid, c.uuid, h.uuid,
    (case when i % 3 = 0 then 'completed' when i % 7 = 0 then 'dropped' else 'enrolled' end)::completion_status,
    case when i % 3 = 0 then round(5 + (i % 500) / 100.0, 2) end,
    timestamptz '2025-03-01' + (i % 365) * interval '1 day',
    case when i % 3 = 0 then timestamptz '2026-12-01' + (i % 30) * interval '1 day' end
  from generate_series(0, ${ENROLLMENTS - 1}) i
  join s on s.n = i % ${STUDENTS}
  join c on c.n = i % ${COURSES}
  join h on h.course_uuid = c.uuid and h.n = (i / ${COURSES}) % ${COHORTS_PER_COURSE}`;

export async function seedCatalogue(databaseUrl: string, tenantUuid: string): Promise<{ courses: number; cohorts: number; seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ uuid: string }>(INSTITUTION, [tenantUuid]);
    const courses = await client.query(COURSES_SQL, [tenantUuid, rows[0]!.uuid]);
    const cohorts = await client.query(COHORTS_SQL, [tenantUuid]);
    await client.query(STUDENTS_SQL, [tenantUuid]);
    const enrollments = await client.query(ENROLLMENTS_SQL, [tenantUuid]);
    if (enrollments.rowCount !== ENROLLMENTS) throw new Error(`seeded ${enrollments.rowCount} enrollments, expected ${ENROLLMENTS}`);
    await client.query('commit');
    await client.query('analyze');
    return { courses: courses.rowCount ?? 0, cohorts: cohorts.rowCount ?? 0, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
