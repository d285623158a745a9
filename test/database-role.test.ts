import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { createLogger } from '../src/logger.js';
import { startService, type RunningService } from '../src/service.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type TestService } from './support/service.js';

jest.setTimeout(90_000);

const sql = (orm: Orm, query: string) => orm.em.getConnection().execute(query);
const refusal = (orm: Orm, query: string) =>
  sql(orm, query).then(
    () => 'allowed',
    (error: { code?: string }) => error.code,
  );

/** What the service's own connection may do: rows yes, schema no. */
async function privilegesOf(orm: Orm) {
  const [role] = await sql(orm, 'select current_user as name, rolsuper as superuser, rolcreaterole, rolcreatedb from pg_roles where rolname = current_user');
  return {
    role,
    dropTable: await refusal(orm, 'drop table certificates'),
    createTable: await refusal(orm, 'create table intruder (id int)'),
    alterTable: await refusal(orm, 'alter table students add column intruder int'),
    truncate: await refusal(orm, 'truncate oauth_access_tokens cascade'),
    createRole: await refusal(orm, 'create role intruder'),
  };
}

const PERMISSION_DENIED = '42501';

describe('the service’s database role', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  });
  afterAll(() => service.stop());

  it('is not a superuser and cannot change the schema, yet serves requests that write', async () => {
    expect(await privilegesOf(service.orm)).toEqual({
      role: { name: expect.stringMatching(/^cs_app_/), superuser: false, rolcreaterole: false, rolcreatedb: false },
      dropTable: PERMISSION_DENIED,
      createTable: PERMISSION_DENIED,
      alterTable: PERMISSION_DENIED,
      truncate: PERMISSION_DENIED,
      createRole: PERMISSION_DENIED,
    });
    const api = await signIn(service, 'acme');
    const student = await factories(api).student({ name: 'Ana Souza' });
    expect((await api.rest('GET', `/students/${student.uuid}`)).body.data.name).toBe('Ana Souza');
  });

  it('gets rows of tables a later migration creates (default privileges), and nothing more', async () => {
    // A later migration, as the owner would run it.
    const owner = await startTestService(
      { DATABASE_URL: service.database.ownerUrl, DATABASE_MIGRATION_URL: service.database.ownerUrl, NOTIFICATION_WORKER: 'off' },
      service.database,
    );
    try {
      await sql(owner.orm, 'create table later_feature (id int primary key)');
    } finally {
      await owner.stop();
    }
    await sql(service.orm, 'insert into later_feature values (1)');
    expect(await sql(service.orm, 'select id from later_feature')).toEqual([{ id: 1 }]);
    expect(await refusal(service.orm, 'drop table later_feature')).toBe(PERMISSION_DENIED);
  });

  it('is warned about when DATABASE_URL names a superuser and no DATABASE_MIGRATION_URL separates the roles', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const superuserUrl = `${service.database.serverUrl}/${new URL(service.database.url).pathname.slice(1)}`;
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: superuserUrl, PORT: '0', HOST: '127.0.0.1', NOTIFICATION_WORKER: 'off' });
    const running = await startService(config, logger);
    await running.stop();
    const warning = lines.map((line) => JSON.parse(line)).find((entry) => /superuser/.test(entry.msg));
    expect(warning).toMatchObject({ level: 40, msg: expect.stringContaining('DATABASE_MIGRATION_URL') });
  });
});

describe('with the embedded PostgreSQL', () => {
  let dataDir: string;
  let running: RunningService | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'credential-service-roles-'));
    await chmod(dataDir, 0o755); // as root, the cluster runs as `postgres`, which must reach its directory
  });
  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it('the service creates an owner and an app role and connects as the app role, not as the bootstrap superuser', async () => {
    running = await startService(
      loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', NOTIFICATION_WORKER: 'off' }),
      createLogger('silent'),
    );
    const privileges = await privilegesOf(running.orm);
    expect(privileges).toMatchObject({ role: { name: 'credentials_app', superuser: false }, dropTable: PERMISSION_DENIED, createTable: PERMISSION_DENIED });
    const [owner] = await sql(running.orm, `select tableowner from pg_tables where tablename = 'certificates'`);
    expect(owner).toEqual({ tableowner: 'credentials_owner' });
  });

  it('hands objects a data directory from before the role split left to the superuser over to the owner role', async () => {
    // As the superuser owned everything before: a table and an enum type of its own.
    const superuser = JSON.parse(await readFile(path.join(dataDir, 'postgres-credentials.json'), 'utf8')) as { user: string; password: string };
    const port = (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[3];
    const admin = new pg.Client({ connectionString: `postgres://${superuser.user}:${encodeURIComponent(superuser.password)}@127.0.0.1:${port}/credentials` });
    await admin.connect();
    await admin.query(`create type legacy_state as enum ('a'); create table legacy_rows (id int, state legacy_state)`);
    await admin.end();
    await running!.stop();
    running = undefined;

    running = await startService(
      loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', NOTIFICATION_WORKER: 'off' }),
      createLogger('silent'),
    );
    const [owners] = await sql(
      running.orm,
      `select (select tableowner from pg_tables where tablename = 'legacy_rows') as tableowner,
      (select pg_get_userbyid(typowner) from pg_type where typname = 'legacy_state') as typeowner`,
    );
    expect(owners).toEqual({ tableowner: 'credentials_owner', typeowner: 'credentials_owner' });
    await sql(running.orm, `insert into legacy_rows values (1, 'a')`);
    expect(await refusal(running.orm, 'drop table legacy_rows')).toBe(PERMISSION_DENIED);
  });
});
