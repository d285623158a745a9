/**
 * Set-based seeding for the growth benchmark (bench/growth.ts): `students` students over 50 tenants —
 * the bench tenant holds 95.1 % of them, 49 small tenants 0.1 % each — every student with two
 * enrollments and one issued certificate. Rows get time-ordered uuids (v7 layout, as the service makes
 * them) and `created_at`s that rise with them, so list orders read as they would in production.
 */
import pg from 'pg';

export const SMALL_TENANTS = 49;
export const COHORTS_PER_COURSE = 4;

export interface TenantShape {
  identifier: string;
  uuid: string;
  students: number;
  courses: number;
}

export interface GrowthSeed {
  tenants: TenantShape[];
  students: number;
  enrollments: number;
  certificates: number;
  seconds: number;
}

/** A uuid v7 whose 48-bit time is `at` (a timestamptz expression): time-ordered like the service's. */
const uuid7 = (at: string) =>
  `(lpad(to_hex((extract(epoch from ${at}) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid`;

const FIRST = `(array['Ana','Bruno','Carla','Diego','Elisa','Fábio','Gabriela','Hugo','Isabel','João','Karina','Lucas','Marina','Nuno','Olívia','Paulo','Quésia','Rafael','Sofia','Tiago'])`;
const LAST = `(array['Almeida','Barbosa','Costa','Dias','Esteves','Ferreira','Gomes','Henriques','Lima','Martins','Nogueira','Oliveira','Pereira','Queiroz','Ribeiro','Santos','Teixeira','Vieira','Xavier','Zanetti'])`;

const STUDENT_AT = (n: string) => `timestamptz '2024-01-01' + ${n} * interval '20 seconds'`;
const ENROLLMENT_AT = (i: string) => `timestamptz '2025-01-01' + ${i} * interval '10 seconds'`;

const INSTITUTION = `
  insert into institutions (uuid, created_at, updated_at, tenant_uuid, name, country)
  values (${uuid7("timestamptz '2023-06-01'")}, timestamptz '2023-06-01', timestamptz '2023-06-01', $1::uuid, 'Growth University ' || $2::text, 'Brazil') returning uuid`;

const COURSES = (courses: number) => `
  insert into courses (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name, code, description, workload, is_active)
  select ${uuid7("timestamptz '2023-07-01' + n * interval '1 minute'")}, timestamptz '2023-07-01' + n * interval '1 minute', now(), $1::uuid, $2::uuid,
    'Course ' || n, 'C' || lpad(n::text, 4, '0'), 'The programme of course ' || n || ', in some detail.', 360 + 20 * (n % 50), n % 10 <> 0
  from generate_series(1, ${courses}) n`;

const COHORTS = `
  insert into cohorts (uuid, created_at, updated_at, tenant_uuid, course_uuid, code, modality, start_date, end_date)
  select ${uuid7("c.created_at + k * interval '1 second'")}, c.created_at + k * interval '1 second', now(), $1::uuid, c.uuid, c.code || '-' || k,
    (array['presential', 'remote', 'hybrid'])[1 + k % 3]::cohort_modality,
    timestamptz '2025-02-01' + k * interval '6 months', timestamptz '2028-12-15' + k * interval '6 months'
  from courses c cross join generate_series(1, ${COHORTS_PER_COURSE}) k
  where c.tenant_uuid = $1::uuid`;

const STUDENTS = (students: number) => `
  insert into students (uuid, created_at, updated_at, tenant_uuid, name, email, date_of_birth, gender, social_name)
  select ${uuid7(STUDENT_AT('n'))}, ${STUDENT_AT('n')}, ${STUDENT_AT('n')}, $1::uuid,
    ${FIRST}[1 + n % 20] || ' ' || ${LAST}[1 + (n / 20) % 20] || ' ' || ${LAST}[1 + (n / 400) % 20] || ' ' || n,
    'student' || n || '@' || $2::text || '.test', date '1980-01-01' + n % 9000, (array['female', 'male', null])[1 + n % 3],
    case when n % 10 = 0 then 'Social ' || n end
  from generate_series(0, ${students - 1}) n`;

// Enrollment i: student i mod S, course i mod C, one of that course's cohorts; a third completed.
const ENROLLMENTS = (students: number, courses: number) => `
  with s as (select uuid, row_number() over (order by uuid) - 1 as n from students where tenant_uuid = $1::uuid),
       c as (select uuid, row_number() over (order by uuid) - 1 as n from courses where tenant_uuid = $1::uuid),
       h as (select uuid, course_uuid, row_number() over (partition by course_uuid order by uuid) - 1 as n from cohorts where tenant_uuid = $1::uuid)
  insert into enrollments (uuid, created_at, updated_at, tenant_uuid, student_uuid, course_uuid, cohort_uuid,
    completion_status, grade, enrolled_at, completed_at)
  select ${uuid7(ENROLLMENT_AT('i'))}, ${ENROLLMENT_AT('i')}, ${ENROLLMENT_AT('i')}, $1::uuid, s.uuid, c.uuid, h.uuid,
    (case when i % 3 = 0 then 'completed' when i % 7 = 0 then 'dropped' else 'enrolled' end)::completion_status,
    case when i % 3 = 0 then round(5 + (i % 500) / 100.0, 2) end,
    timestamptz '2025-03-01' + (i % 365) * interval '1 day',
    case when i % 3 = 0 then timestamptz '2026-12-01' + (i % 30) * interval '1 day' end
  from generate_series(0, ${2 * students - 1}) i
  join s on s.n = i % ${students}
  join c on c.n = i % ${courses}
  join h on h.course_uuid = c.uuid and h.n = (i / ${courses}) % ${COHORTS_PER_COURSE}
  order by i`;

// One issued certificate per student: of enrollments 0 … S-1 (each student's first), 400 days on.
const CERTIFICATES = (students: number) => `
  insert into certificates (uuid, created_at, updated_at, tenant_uuid, institution_uuid, course_uuid, student_uuid, cohort_uuid,
    enrollment_uuid, status, issued_at, recipient_name, recipient_email, recipient_date_of_birth)
  select ${uuid7("e.created_at + interval '400 days'")}, e.created_at + interval '400 days', e.created_at + interval '400 days', $1::uuid, $2::uuid,
    e.course_uuid, e.student_uuid, e.cohort_uuid, e.uuid, 'issued', e.created_at + interval '400 days', s.name, s.email, s.date_of_birth
  from enrollments e join students s on s.uuid = e.student_uuid
  where e.tenant_uuid = $1::uuid and e.created_at < ${ENROLLMENT_AT(String(students))}
  order by e.created_at`;

/** Courses of a tenant: 50 at 10,000 students, growing with the square root (500 at 1,000,000). */
const coursesFor = (students: number) => Math.max(5, Math.round(50 * Math.sqrt(students / 10_000)));

/** Seeds the bench tenant (`bench`, already created) and 49 more into `databaseUrl`. */
export async function seedGrowth(databaseUrl: string, bench: { identifier: string; uuid: string }, students: number): Promise<GrowthSeed> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`set synchronous_commit = off; set work_mem = '256MB'; set maintenance_work_mem = '512MB'; set statement_timeout = 0`);
    const small = Math.max(1, Math.round(students / 1000));
    const created = await client.query<{ uuid: string; identifier: string }>(
      `insert into tenants (uuid, identifier, name, created_at)
       select gen_random_uuid(), 'growth-' || lpad(k::text, 2, '0'), 'Growth tenant ' || k, now() from generate_series(1, ${SMALL_TENANTS}) k
       returning uuid, identifier`,
    );
    const big = students - SMALL_TENANTS * small;
    const tenants: TenantShape[] = [
      { ...bench, students: big, courses: coursesFor(big) },
      ...created.rows.map((row) => ({ ...row, students: small, courses: coursesFor(small) })),
    ];
    let enrollments = 0;
    let certificates = 0;
    for (const tenant of tenants) {
      await client.query('begin');
      const institution = (await client.query<{ uuid: string }>(INSTITUTION, [tenant.uuid, tenant.identifier])).rows[0]!.uuid;
      await client.query(COURSES(tenant.courses), [tenant.uuid, institution]);
      await client.query(COHORTS, [tenant.uuid]);
      await client.query(STUDENTS(tenant.students), [tenant.uuid, tenant.identifier]);
      enrollments += (await client.query(ENROLLMENTS(tenant.students, tenant.courses), [tenant.uuid])).rowCount ?? 0;
      certificates += (await client.query(CERTIFICATES(tenant.students), [tenant.uuid, institution])).rowCount ?? 0;
      await client.query('commit');
    }
    if (enrollments !== 2 * students || certificates !== students) throw new Error(`seeded ${enrollments} enrollments and ${certificates} certificates`);
    // As a database that has lived a while: statistics current and visibility maps set (index-only scans).
    await client.query('vacuum (analyze) students, enrollments, certificates, courses, cohorts, live_row_counts');
    return { tenants, students, enrollments, certificates, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The seed an earlier run left in a kept database (BENCH_GROWTH_DATA_DIR), when it is complete; else undefined. */
export async function seededAlready(databaseUrl: string, bench: { identifier: string; uuid: string }, students: number): Promise<GrowthSeed | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ uuid: string; identifier: string; students: string; courses: string }>(
      `select t.uuid, t.identifier,
         (select count(*) from students s where s.tenant_uuid = t.uuid) as students,
         (select count(*) from courses c where c.tenant_uuid = t.uuid and c.code like 'C%') as courses
       from tenants t where t.identifier like 'growth-%' or t.uuid = $1 order by t.uuid = $1 desc, t.identifier`,
      [bench.uuid],
    );
    const tenants = rows.map((row) => ({ uuid: row.uuid, identifier: row.identifier, students: Number(row.students), courses: Number(row.courses) }));
    const total = tenants.reduce((sum, tenant) => sum + tenant.students, 0);
    if (tenants.length !== SMALL_TENANTS + 1 || total < students) return undefined;
    return { tenants, students: total, enrollments: 2 * total, certificates: total, seconds: 0 };
  } finally {
    await client.end();
  }
}
