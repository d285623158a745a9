import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { uploadPdf } from './support/files.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(120_000);

let database: TestDatabase;
let service: TestService;
let acme: ApiClient;
let scratch: string;
const kek = randomBytes(32).toString('hex');

beforeAll(async () => {
  database = await createTestDatabase();
  service = await startTestService({ KEY_ENCRYPTION_KEY: kek }, database);
  acme = await signIn(service, 'acme');
  scratch = await mkdtemp(join(tmpdir(), 'import-'));
});
afterAll(async () => {
  await service.stop();
  await database.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** The built operator CLI, as an operator runs it, on the test service's database. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    DATA_DIR: scratch,
    KEY_ENCRYPTION_KEY: kek,
    DATABASE_URL: database.url,
    DATABASE_MIGRATION_URL: database.ownerUrl,
  };
  const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('certificates:import', () => {
  it('creates a certificate per good line, reports the bad line, draws progress on stderr and writes a results CSV', async () => {
    const make = factories(acme);
    const institution = await make.institution();
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student();
    const files = [await uploadPdf(acme), await uploadPdf(acme), await uploadPdf(acme)];
    const line = (file: string, studentUuid = student.uuid) => `${institution.uuid},${course.uuid},${studentUuid},${file},`;
    const csv = [
      'institution_uuid,course_uuid,student_uuid,file_uuid,expires_at',
      line(files[0]!.uuid),
      line(files[1]!.uuid, '0190d3b4-0000-7000-8000-000000000000'),
      `${line(files[2]!.uuid)}2030-01-31T00:00:00Z`,
    ].join('\n');
    const input = join(scratch, 'batch.csv');
    await writeFile(input, csv);

    const run = await cli(['certificates:import', input, '--tenant', 'acme']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`2 certificate(s) created, 1 line(s) failed; results in ${join(scratch, 'batch.results.csv')}`);
    expect(run.stderr).toContain('3/3 lines | 1 failed');

    const results = parse(await readFile(join(scratch, 'batch.results.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(results).toEqual([
      { line: '2', status: 'draft', certificate_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), error: '' },
      { line: '3', status: 'failed', certificate_uuid: '', error: 'student_uuid: The selected student uuid is invalid.' },
      { line: '4', status: 'draft', certificate_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), error: '' },
    ]);
    const listed = await acme.rest('GET', `/certificates?where[student_uuid]=${student.uuid}&sort[column]=created_at&sort[order]=asc`);
    expect(listed.body.data.map((row: { uuid: string }) => row.uuid)).toEqual([results[0]!.certificate_uuid, results[2]!.certificate_uuid]);
    expect(listed.body.data[1].expires_at).toBe('2030-01-31T00:00:00.000000Z');
  });

  it('imports one-call lines: the course by external id, the recipient found or registered once', async () => {
    const make = factories(acme);
    const institution = await make.institution();
    const courseExternalId = `import-${randomBytes(4).toString('hex')}`;
    await make.course({ institution_uuid: institution.uuid, external_id: courseExternalId });
    const email = `import-${randomBytes(4).toString('hex')}@example.org`;
    const files = [await uploadPdf(acme), await uploadPdf(acme)];
    const csv = [
      'course_external_id,recipient_email,recipient_name,recipient_date_of_birth,file_uuid,notify',
      ...files.map((file) => `${courseExternalId},${email},Lia Prado,1996-05-06,${file.uuid},false`),
    ].join('\n');
    const input = join(scratch, 'one-call.csv');
    await writeFile(input, csv);
    const run = await cli(['certificates:import', input, '--tenant', 'acme']);
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining('2 certificate(s) created, 0 line(s) failed')]);
    const students = (await acme.rest('GET', `/students?where[email]=${email}`)).body.data;
    expect(students).toHaveLength(1);
    expect((await acme.rest('GET', `/certificates?where[student_uuid]=${students[0].uuid}`)).body.meta.total).toBe(2);
  });

  it('an unknown column stops the import before anything is created, naming the columns', async () => {
    const input = join(scratch, 'wrong.csv');
    await writeFile(input, 'institution,course_uuid\nx,y\n');
    const run = await cli(['certificates:import', input, '--tenant', 'acme', '--results', join(scratch, 'out.csv')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: unknown column(s) institution; the columns are institution_uuid, course_uuid');
  });
});
