import net from 'node:net';
import { jest } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createLogger } from '../src/logger.js';
import { createQueuePool } from '../src/queue/queue-pool.js';
import { createTestDatabase } from './support/database.js';
import { provisionClient, requestToken, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

jest.setTimeout(60_000);

/** Runs `work` in a transaction of the service's own pool and keeps it open until the returned release is called. */
async function holdConnection(service: TestService, work: (em: EntityManager) => Promise<unknown> = (em) => em.execute('select 1')) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const done = service.orm.em.fork().transactional(async (em) => {
    await work(em as EntityManager);
    started();
    await released;
  });
  await running;
  return async () => {
    release();
    await done;
  };
}

/** Sessions of the service's database waiting for a lock, seen from a connection outside its pool. */
async function lockWaits(service: TestService): Promise<number> {
  const client = new pg.Client({ connectionString: service.database.url });
  await client.connect();
  try {
    const result = await client.query("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()");
    return result.rows[0].n;
  } finally {
    await client.end();
  }
}

describe('session timeouts', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ DB_STATEMENT_TIMEOUT_MS: '1000', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1500' });
  });
  afterAll(() => service.stop());

  it("apply statement_timeout and idle_in_transaction_session_timeout from the configuration to the service's sessions", async () => {
    const connection = service.orm.em.getConnection();
    expect(await connection.execute('show statement_timeout')).toEqual([{ statement_timeout: '1s' }]);
    expect(await connection.execute('show idle_in_transaction_session_timeout')).toEqual([{ idle_in_transaction_session_timeout: '1500ms' }]);
    await expect(service.orm.em.fork().execute('select pg_sleep(3)')).rejects.toThrow('canceling statement due to statement timeout');
  });

  // The service must still stop afterwards: the ended session's connection goes back to the pool (releaseDeadClients, src/db/service-driver.ts).
  it('end a transaction left idle longer than the idle timeout, and the pool recovers its connection', async () => {
    const outcome = service.orm.em.fork().transactional(async (em) => {
      await em.execute('select 1');
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await em.execute('select 1');
    });
    await expect(outcome).rejects.toThrow();
    expect(await service.orm.em.getConnection().execute('select 1 as ok')).toEqual([{ ok: 1 }]);
    const pool = (await service.orm.em.getConnection().getNativeClient()) as { totalCount: number; idleCount: number };
    await until(() => pool.totalCount === pool.idleCount, 'every connection to be back in the pool');
  });
});

describe('statements PostgreSQL ends', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ DB_STATEMENT_TIMEOUT_MS: '1000' });
  });
  afterAll(() => service.stop());

  /** Starts `request` while the students table is locked, so that its read waits; `meanwhile` runs once it does. */
  async function blockedOnStudents<T>(request: () => Promise<T>, meanwhile: () => Promise<unknown> = async () => undefined): Promise<T> {
    const release = await holdConnection(service, (em) => em.execute('lock table "students" in access exclusive mode'));
    try {
      const pending = request();
      await until(async () => (await lockWaits(service)) === 1, 'the read to wait for the lock');
      await meanwhile();
      return await pending;
    } finally {
      await release();
    }
  }

  it('answer a statement timeout with 503 and Retry-After on REST and GraphQL', async () => {
    const acme = await signIn(service, 'acme');
    const rest = await blockedOnStudents(() => acme.rest('GET', '/students'));
    expect([rest.status, rest.body, rest.headers.get('retry-after')]).toEqual([503, { message: 'The service is busy; retry in a moment.' }, '2']);
    const graphql = await blockedOnStudents(() => acme.graphql('{ students { nodes { uuid } } }'));
    expect([graphql.status, graphql.body.errors[0].extensions.code, graphql.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '2']);
  });

  it('answer a session ended by the administrator (as in a shutdown) with 503 and Retry-After, then serve again', async () => {
    const acme = await signIn(service, 'acme');
    const admin = new pg.Client({ connectionString: service.database.url });
    await admin.connect();
    try {
      const terminateWaiting = async () => {
        const ended = await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
        );
        expect(ended.rowCount).toBe(1);
      };
      const rest = await blockedOnStudents(() => acme.rest('GET', '/students'), terminateWaiting);
      expect([rest.status, rest.body, rest.headers.get('retry-after')]).toEqual([503, { message: 'The service is busy; retry in a moment.' }, '2']);
    } finally {
      await admin.end();
    }
    expect((await acme.rest('GET', '/students')).status).toBe(200);
  });
});

describe('pool acquisition timeout', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ DB_POOL_MAX: '2', DB_POOL_ACQUIRE_TIMEOUT_MS: '300' });
  });
  afterAll(() => service.stop());

  it('answers 503 with Retry-After on REST, GraphQL and the token endpoint while every connection is taken, then recovers', async () => {
    const acme = await signIn(service, 'acme');
    const credentials = await provisionClient(service.orm, 'acme');
    const releases = [await holdConnection(service), await holdConnection(service)];
    try {
      const rest = await acme.rest('GET', '/students');
      expect([rest.status, rest.body, rest.headers.get('retry-after')]).toEqual([503, { message: 'The service is busy; retry in a moment.' }, '2']);
      const graphql = await acme.graphql('{ students { nodes { uuid } } }');
      expect([graphql.status, graphql.body, graphql.headers.get('retry-after')]).toEqual([
        503,
        { errors: [{ message: 'The service is busy; retry in a moment.', extensions: { code: 'SERVICE_UNAVAILABLE' } }] },
        '2',
      ]);
      const token = await requestToken(service.url, credentials);
      expect([token.status, await token.json(), token.headers.get('retry-after')]).toEqual([503, { message: 'The service is busy; retry in a moment.' }, '2']);
    } finally {
      for (const release of releases) await release();
    }
    expect((await acme.rest('GET', '/students')).status).toBe(200);
  });

  it('answers 503 for an operation whose resolver cannot get a connection once authenticated', async () => {
    const acme = await signIn(service, 'acme');
    // The service's own pool holds one connection with the students table locked; the request's
    // token lookup takes the other and gives it back, then one field blocks on the lock while holding
    // it and the other field finds no connection.
    const release = await holdConnection(service, (em) => em.execute('lock table "students" in access exclusive mode'));
    let response: Awaited<ReturnType<typeof acme.graphql>>;
    try {
      const pending = acme.graphql('{ a: students(first: 1) { nodes { uuid } } b: students(first: 2) { nodes { uuid } } }');
      await until(async () => (await lockWaits(service)) === 1, 'a field to wait for the lock');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await release();
      response = await pending;
    } catch (error) {
      await release();
      throw error;
    }
    expect([response.status, response.headers.get('retry-after')]).toEqual([503, '2']);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: 'The service is busy; retry in a moment.', extensions: { code: 'SERVICE_UNAVAILABLE' } }),
    ]);
  });
});

/** A TCP relay in front of PostgreSQL that a test can take down (refusing connections, cutting open ones) and bring back on the same port. */
async function closableRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const open = (port: number) =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => socket.destroy());
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server!.address() as net.AddressInfo).port));
    });
  const port = await open(0);
  return {
    url: (database: URL) => Object.assign(new URL(database), { host: `127.0.0.1:${port}` }).toString(),
    down: () => {
      server?.close();
      for (const socket of sockets) socket.destroy();
    },
    up: () => open(port),
  };
}

describe('PostgreSQL down', () => {
  it('answers 503 with Retry-After on REST and GraphQL instead of a 500, and recovers when it is back', async () => {
    const database = await createTestDatabase();
    const relay = await closableRelay(new URL(database.url));
    const service = await startTestService({ DATABASE_URL: relay.url(new URL(database.url)) }, database);
    try {
      const acme = await signIn(service, 'acme');
      relay.down();
      const rest = await acme.rest('GET', '/students');
      expect([rest.status, rest.body, rest.headers.get('retry-after')]).toEqual([503, { message: 'The service is busy; retry in a moment.' }, '2']);
      const graphql = await acme.graphql('{ students { nodes { uuid } } }');
      expect([graphql.status, graphql.body.errors[0].extensions.code, graphql.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '2']);
      const ready = await fetch(`${service.url}/readyz`);
      expect([ready.status, await ready.json(), ready.headers.get('retry-after')]).toEqual([
        503,
        { status: 'unavailable', message: 'The database is not reachable.' },
        '2',
      ]);
      await relay.up();
      await until(async () => (await acme.rest('GET', '/students')).status === 200, 'the service to read again');
    } finally {
      relay.down();
      await service.stop();
      await database.drop();
    }
  });
});

describe("the job queue's connection pool", () => {
  it('logs and ignores a second release of one connection (graphile-worker releases a dead listening connection twice)', async () => {
    const database = await createTestDatabase();
    const warnings: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => warnings.push(JSON.parse(line).msg) });
    const pool = createQueuePool(database.url, 2, logger);
    try {
      const client = await pool.connect();
      client.release();
      expect(() => client.release()).not.toThrow();
      expect(warnings).toEqual(['job queue: a connection was released twice; the second release is ignored']);
      const viaCallback = await new Promise<() => void>((resolve, reject) =>
        pool.connect((error, connected, release) => (error || !connected ? reject(error) : resolve(release))),
      );
      viaCallback();
      expect(() => viaCallback()).not.toThrow();
      expect(warnings).toHaveLength(2);
      expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
