import { jest } from '@jest/globals';
import { openOrm } from '../src/db/orm.js';
import { createTestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { pdfBytes, upload } from './support/files.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { ApiClient, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(180_000);

// Over INLINE_BATCH_ITEMS (50), so it runs as a job: three chunks of BATCH_CHUNK_ITEMS (25), the kill
// landing after the first is saved with two chunks still to issue.
const ITEMS = 75;

describe('a server process killed while it runs a certificate batch', () => {
  let child: ChildServer | undefined;
  afterEach(() => child?.killHard());

  it('leaves the job to the next process, which resumes it from its results: every item issued once', async () => {
    const database = await createTestDatabase();
    child = await startChildServer(database.url);

    const orm = await openOrm(database.url, { poolMax: 2 });
    let successor: TestService | undefined;
    try {
      const { api } = child;
      const make = factories(api);
      const institution = await make.institution();
      const course = await make.course({ institution_uuid: institution.uuid });
      const student = await make.student();
      const files: string[] = [];
      for (let start = 0; start < ITEMS; start += 20) {
        const response = await upload(
          api,
          Array.from({ length: Math.min(20, ITEMS - start) }, (_, offset) => [pdfBytes(`crash batch ${start + offset} ${Math.random()}`), 'diploma.pdf']),
        );
        files.push(...response.body.data.map((file: { uuid: string }) => file.uuid));
      }
      const inputs = files.map((file_uuid) => ({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid }));
      const accepted = await api.rest('POST', '/certificates/batch', { inputs });
      expect(accepted.status).toBe(202);
      const job = accepted.body.data.uuid as string;
      const row = async () => (await orm.em.fork().execute(`select status, done, locked_until from jobs where uuid = ?`, [job]))[0];
      await until(async () => (await row()).done > 0, 'the child to save its first chunk');

      await child.killHard();
      const killed = await row();
      expect(killed).toMatchObject({ status: 'running' });
      expect(killed.done).toBeLessThan(ITEMS);
      expect(killed.locked_until).not.toBeNull();
      // The lease outlasts a chunk (JOB_LEASE_SECONDS); run it out now rather than wait for it.
      await orm.em.fork().execute(`update jobs set locked_until = now() - interval '1 second' where uuid = ?`, [job]);

      successor = await startTestService({ NOTIFICATION_POLL_MS: '50' }, database);
      const again = new ApiClient(successor.url, api.token, 'acme');
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
