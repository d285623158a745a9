import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { createEmptyDatabase, type TestDatabase } from './support/database.js';
import { startTestService, type TestService } from './support/service.js';

let database: TestDatabase;
const services: TestService[] = [];

beforeAll(async () => {
  database = await createEmptyDatabase();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await database.drop();
});

describe('startup on a new database', () => {
  it('lets three processes started together migrate it once: all of them come up and serve', async () => {
    const started = await Promise.allSettled([1, 2, 3].map(() => startTestService({}, database)));
    for (const result of started) if (result.status === 'fulfilled') services.push(result.value);
    expect(started.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);

    for (const service of services) expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const [first] = services;
    const applied = await first!.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from schema_migrations');
    const distinct = await first!.orm.em.getConnection().execute<{ n: number }[]>('select count(distinct name)::int as n from schema_migrations');
    expect(applied[0]!.n).toBeGreaterThan(0);
    expect(applied[0]!.n).toBe(distinct[0]!.n);
  });
});

describe('the demo tenant (development)', () => {
  it('is created and printed only once the server listens: a start that cannot listen leaves nothing behind', async () => {
    const fresh = await createEmptyDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'demo-'));
    const env = { NODE_ENV: 'development', DATA_DIR: dataDir };
    const printed: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as net.AddressInfo).port);
      await expect(startTestService({ ...env, PORT: port }, fresh)).rejects.toThrow(/EADDRINUSE/);
      expect(printed.join('')).not.toContain('Demo tenant created');

      const service = await startTestService(env, fresh);
      await service.stop();
      expect(printed.join('')).toContain('Demo tenant created');
      const clientId = /client_id:\s+(\S+)/.exec(printed.join(''))![1];
      const again = await startTestService(env, fresh);
      const tenants = await again.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from tenants where identifier = 'demo'`);
      await again.stop();
      expect(tenants[0]!.n).toBe(1);
      expect(printed.join('').match(/Demo tenant created/g)).toHaveLength(1);
      expect(clientId).toBeTruthy();
    } finally {
      write.mockRestore();
      taken.close();
      await fresh.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
