import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { roleUrl } from '../../src/db/database.js';
import { ensureServiceRoles, type ServiceRoles } from '../../src/db/database-roles.js';
import { freePort } from '../../src/db/postmaster.js';
import type { TestDatabase } from './database.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 binaries: pg_basebackup must match the server it copies. */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
export const hasDebianPostgres = () => existsSync(path.join(POSTGRES_BIN, 'pg_basebackup'));

/** A server of the pair: its superuser URL (no database) and how to stop it. */
export interface Server {
  port: number;
  /** As the superuser `postgres` (trust on loopback), no database. */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface ReplicatedCluster {
  primary: Server;
  replica: Server;
  /** The service's database on the primary, as the test support's databases look. */
  database: TestDatabase;
  /** The same database on the replica, as the app role. */
  replicaUrl: string;
  /** Runs one statement as the superuser on `server`'s copy of the database. */
  query<R extends object>(server: Server, sql: string): Promise<R[]>;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a PostgreSQL tool as the `postgres` user when this process is root (initdb and the server refuse root). */
async function tool(name: string, args: string[]): Promise<void> {
  const binary = path.join(POSTGRES_BIN, name);
  if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

async function start(dataDir: string, port: number): Promise<Server> {
  await tool('pg_ctl', ['-D', dataDir, '-l', path.join(dataDir, 'server.log'), '-w', '-o', `-p ${port}`, 'start']);
  return {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}`,
    stop: () => tool('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined),
  };
}

async function statement<R extends object>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A primary made with initdb (WAL for streaming, replication trusted on loopback, pg_stat_statements
 * loaded) and a hot standby copied from it by `pg_basebackup -R`, both in one temp directory; the
 * service's owner and app roles and an empty database owned by the owner on the primary.
 */
export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const root = await mkdtemp(path.join(tmpdir(), 'credential-service-replica-'));
  await chmod(root, 0o755);
  const owned = async (dir: string) => {
    if (userInfo().uid === 0) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  };
  await owned(root);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const servers: Server[] = [];
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
    await appendFile(
      path.join(primaryDir, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'wal_level = replica',
        'max_wal_senders = 4',
        'max_connections = 100',
        'fsync = off',
        "shared_preload_libraries = 'pg_stat_statements'",
        'hot_standby = on',
        '',
      ].join('\n'),
    );
    await appendFile(path.join(primaryDir, 'pg_hba.conf'), 'host replication postgres 127.0.0.1/32 trust\n');
    const primary = await start(primaryDir, await freePort());
    servers.push(primary);

    const run_ = `${process.pid}_${Date.now()}`;
    const roles: ServiceRoles = {
      owner: { user: `replica_owner_${run_}`, password: 'owner-secret' },
      app: { user: `replica_app_${run_}`, password: 'app-secret' },
    };
    await ensureServiceRoles(`${primary.adminUrl}/postgres`, roles);
    const name = 'credentials';
    await statement(`${primary.adminUrl}/postgres`, `create database ${name} owner ${roles.owner.user}`);
    await statement(`${primary.adminUrl}/${name}`, 'create extension pg_stat_statements');

    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    const replica = await start(replicaDir, await freePort());
    servers.push(replica);

    const query = <R extends object>(server: Server, sql: string) => statement<R>(`${server.adminUrl}/${name}`, sql);
    return {
      primary,
      replica,
      database: {
        url: roleUrl(primary.adminUrl, roles.app, name),
        ownerUrl: roleUrl(primary.adminUrl, roles.owner, name),
        serverUrl: primary.adminUrl,
        drop: async () => {},
      },
      replicaUrl: roleUrl(replica.adminUrl, roles.app, name),
      query,
      async caughtUp() {
        const [{ lsn }] = await query<{ lsn: string }>(primary, 'select pg_current_wal_lsn()::text as lsn');
        for (let attempt = 0; attempt < 200; attempt++) {
          const [{ behind }] = await query<{ behind: boolean }>(replica, `select pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn as behind`);
          if (!behind) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('the replica did not catch up with the primary');
      },
      async stop() {
        for (const server of servers.reverse()) await server.stop();
        await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      },
    };
  } catch (error) {
    for (const server of servers.reverse()) await server.stop();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
