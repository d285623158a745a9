import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort, until } from './wait.js';
import net from 'node:net';

/** Debian's pgbouncer (apt-get install pgbouncer; .ci/run installs it). */
export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((candidate) => existsSync(candidate));

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by the pooler's. */
  through(databaseUrl: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode as a child process in front of `serverUrl`'s server, with a few
 * server connections per database and user (so consecutive transactions of one client connection
 * land on different server sessions, as under load); clients log in with the passwords of `users`.
 */
export async function startPgBouncer(
  serverUrl: string,
  users: { user: string; password: string }[],
  /** Accept (and drop) the session timeouts node-postgres sends at connect: lets a service without DATABASE_POOLER connect at all. */
  { ignoreTimeouts = false } = {},
): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const dir = await mkdtemp(path.join(tmpdir(), 'credential-service-pgbouncer-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  await writeFile(path.join(dir, 'users.txt'), users.map(({ user, password }) => `${quote(user)} ${quote(password)}`).join('\n') + '\n', { mode: 0o644 });
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = plain',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    'default_pool_size = 3',
    'max_client_conn = 500',
    'server_reset_query =',
    `ignore_startup_parameters = extra_float_digits${ignoreTimeouts ? ',statement_timeout,idle_in_transaction_session_timeout' : ''}`,
    'log_connections = 0',
    'log_disconnections = 0',
    '',
  ].join('\n');
  await writeFile(path.join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  // PgBouncer refuses to run as root; -u drops to the postgres user.
  const args = [...(userInfo().uid === 0 ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const accepting = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
  try {
    await until(async () => child.exitCode === null && (await accepting()), 'pgbouncer to accept connections', 15_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; pgbouncer said:\n${output}`);
  }
  return {
    through(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
