import { jest } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../src/logger.js';
import { type RunningJobQueue, startJobQueue } from '../src/queue/job-queue.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

/** Far longer than the test waits: a job found only by a poll is a job missed. */
const POLL_MS = 120_000;

describe('the job queue, a job in a named queue', () => {
  let database: TestDatabase;
  let queue: RunningJobQueue;
  let owner: pg.Pool;
  const ran: number[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    owner = new pg.Pool({ connectionString: database.ownerUrl, max: 3 });
    queue = await startJobQueue({
      databaseUrl: database.url,
      kinds: [
        // Another kind's runner is woken by the same notifications: its fetches lock the free queues' rows too.
        { tasks: { other: async () => undefined }, concurrency: 2 },
        { tasks: { named: async (payload) => void ran.push((payload as { n: number }).n) }, concurrency: 4, namedQueues: true },
      ],
      periodic: [],
      pollMs: POLL_MS,
      logger: createLogger('silent'),
    });
  });
  afterAll(async () => {
    await queue?.stop();
    await owner?.end();
    await database?.drop();
  });

  const addNamed = (n: number) => owner.query(`select graphile_worker.add_job('named', json_build_object('n', $1::int), queue_name := 'q')`, [n]);

  it('runs when announced even if the fetch the announcement woke found its queue locked by another fetch', async () => {
    await addNamed(1);
    await until(() => ran.includes(1), 'the first job (it creates the queue)', 10_000);

    // What a concurrent fetch does for a moment: lock the queue's row. The job below is announced meanwhile, so
    // the fetch it wakes skips the queue (SKIP LOCKED) and finds nothing. Before the refetch this job then
    // waited for the next poll (POLL_MS).
    const holder = await owner.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from graphile_worker._private_job_queues where queue_name = 'q' for key share`);
      await addNamed(2);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(ran).not.toContain(2);
      await holder.query('commit');
    } finally {
      holder.release();
    }
    await until(() => ran.includes(2), 'the announced job, without waiting for a poll', 10_000);
  });
});
