import { spawn, type ChildProcess } from 'node:child_process';
import { jest } from '@jest/globals';
import { openOrm } from '../src/db/orm.js';
import { createTestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { pdfBytes, upload } from './support/files.js';
import { ApiClient, requestToken, startTestService, type TestService } from './support/service.js';
import { freePort, until } from './support/wait.js';

jest.setTimeout(180_000);

const SEED = { SEED_TENANT: 'acme', SEED_CLIENT_ID: 'batch-crash-client', SEED_CLIENT_SECRET: 'batch-crash-secret-0123456789abcdef' };
const ITEMS = 300;

describe('a server process killed while it runs a certificate batch', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('leaves the job to the next process, which resumes it from its results: every item issued once', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', ...SEED };
    child = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    const baseUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, 'the child to be ready').catch((error) => {
      throw new Error(`${error.message}; its output:\n${output}`);
    });

    const orm = await openOrm(database.url, { poolMax: 2 });
    let successor: TestService | undefined;
    try {
      const token = (
        (await (await requestToken(baseUrl, { clientId: SEED.SEED_CLIENT_ID, clientSecret: SEED.SEED_CLIENT_SECRET })).json()) as { access_token: string }
      ).access_token;
      const api = new ApiClient(baseUrl, token, 'acme');
      const make = factories(api);
      const institution = await make.institution();
      const course = await make.course({ institution_uuid: institution.uuid });
      const student = await make.student();
      const files: string[] = [];
      for (let start = 0; start < ITEMS; start += 20) {
        const response = await upload(
          api,
          Array.from({ length: 20 }, (_, offset) => [pdfBytes(`crash batch ${start + offset} ${Math.random()}`), 'diploma.pdf']),
        );
        files.push(...response.body.data.map((file: { uuid: string }) => file.uuid));
      }
      const inputs = files.map((file_uuid) => ({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid }));
      const accepted = await api.rest('POST', '/certificates/batch', { inputs });
      expect(accepted.status).toBe(202);
      const job = accepted.body.data.uuid as string;
      const row = async () => (await orm.em.fork().execute(`select status, done, locked_until from jobs where uuid = ?`, [job]))[0];
      await until(async () => (await row()).done > 0, 'the child to save its first chunk');

      child.kill('SIGKILL');
      await exited;
      const killed = await row();
      expect(killed).toMatchObject({ status: 'running' });
      expect(killed.done).toBeLessThan(ITEMS);
      expect(killed.locked_until).not.toBeNull();
      // The lease outlasts a chunk (JOB_LEASE_SECONDS); run it out now rather than wait for it.
      await orm.em.fork().execute(`update jobs set locked_until = now() - interval '1 second' where uuid = ?`, [job]);

      successor = await startTestService({ NOTIFICATION_POLL_MS: '50' }, database);
      const again = new ApiClient(successor.url, token, 'acme');
      let resumed: Record<string, any> = {};
      await until(async () => {
        resumed = (await again.rest('GET', `/jobs/${job}`)).body.data;
        return resumed.status === 'completed';
      }, 'the next process to finish the job');
      expect(resumed).toMatchObject({ total: ITEMS, done: ITEMS, failed: 0 });
      expect(resumed.results.map((result: { index: number }) => result.index)).toEqual([...Array(ITEMS).keys()]);
      expect((await again.rest('GET', `/certificates?where[student_uuid]=${student.uuid}`)).body.meta.total).toBe(ITEMS);
    } finally {
      await successor?.stop();
      await orm.close();
      await database.drop();
    }
  });
});
