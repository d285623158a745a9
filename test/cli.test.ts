import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The first run of the CLI loads all of it without a compile cache: 30 s was not enough on a loaded 2-core machine.
jest.setTimeout(90_000);

let database: TestDatabase;
let scratch: string;
const kek = randomBytes(32).toString('hex');

beforeAll(async () => {
  database = await createTestDatabase();
  scratch = await mkdtemp(join(tmpdir(), 'cli-'));
});

afterAll(async () => {
  await database.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** The built operator CLI as an operator runs it (without npm's banner). */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const merged = {
    ...process.env,
    NODE_ENV: 'test',
    DATA_DIR: scratch,
    KEY_ENCRYPTION_KEY: kek,
    DATABASE_URL: database.url,
    DATABASE_MIGRATION_URL: database.ownerUrl,
    // Each run loads the whole CLI again: the second and later compile its modules from this file's cache.
    NODE_COMPILE_CACHE: join(scratch, 'compile-cache'),
    ...env,
  };
  const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], {
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('operator CLI', () => {
  it('prints help for the program and for each command, exit 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of [
      'migrate',
      'doctor',
      'tenant:create',
      'tenant:list',
      'client:create',
      'client:rotate',
      'signing:install',
      'keys:rewrap',
      'badges:rotate-key',
    ]) {
      expect(help.stdout).toContain(command);
    }
    const commandHelp = await cli(['client:create', '-h']);
    expect([commandHelp.code, commandHelp.stdout]).toEqual([0, expect.stringContaining('--tenant <identifier>')]);
  });

  it.each([
    [['nope'], /^error: unknown command 'nope' \(see --help\)\n$/],
    [['client:create'], /^error: required option '--tenant <identifier>' not specified \(see --help\)\n$/],
    [['client:create', '--tenant'], /^error: option '--tenant <identifier>' argument missing \(see --help\)\n$/],
    [['tenant:list', '--bogus'], /^error: unknown option '--bogus' \(see --help\)\n$/],
    [['tenant:create'], /^error: missing required argument 'identifier' \(see --help\)\n$/],
  ])('answers the usage mistake %j with one line and exit code 2, no stack trace', async (args, message) => {
    const run = await cli(args);
    expect([run.code, run.stderr, run.stdout]).toEqual([2, expect.stringMatching(message), '']);
  });

  it('reports a mistake in the data as one line, exit 1', async () => {
    const run = await cli(['client:create', '--tenant', 'no-such-tenant']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*no-such-tenant/)]);
  });

  it('manages tenants and clients on the configured database', async () => {
    expect((await cli(['tenant:create', 'cli-tenant', '--name', 'CLI tenant'])).stdout).toBe('tenant "cli-tenant" created\n');
    expect((await cli(['tenant:list'])).stdout).toMatch(/^cli-tenant {2}name=CLI tenant {2}created=\S+Z$/m);
    const client = await cli(['client:create', '--tenant', 'cli-tenant']);
    expect([client.code, client.stdout]).toEqual([0, expect.stringMatching(/client_id: +\S+\nclient_secret: +\S+/)]);
    expect((await cli(['migrate'])).stdout).toBe('the database schema is current\n');
  });

  it('doctor checks each part and says what it found', async () => {
    const run = await cli(['doctor'], { DATA_DIR: scratch });
    expect(run.code).toBe(0);
    for (const check of ['configuration', 'database', 'migrations', 'signing identities', 'smtp', 'disk'])
      expect(run.stdout).toMatch(new RegExp(`^ok +${check} `, 'm'));
    expect(run.stdout).toMatch(/^ok +database +PostgreSQL \d+/m);

    const unreachable = await cli(['doctor'], { DATA_DIR: scratch, SMTP_URL: 'smtp://127.0.0.1:9' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toMatch(/^FAIL +smtp +/m);
  });

  it('does not create a new embedded database where the server keeps none, and names the directory it looked at', async () => {
    const dataDir = join(scratch, 'elsewhere');
    const run = await cli(['client:list'], { DATABASE_URL: undefined, DATABASE_MIGRATION_URL: undefined, DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no embedded PostgreSQL in DATA_DIR=${dataDir}`);
    expect(run.stderr).toContain('--init');
    expect(existsSync(dataDir)).toBe(false);
  });
});
