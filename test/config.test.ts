import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { VARIABLE_NAMES } from '../src/config-schema.js';

let dataDir: string;
beforeAll(async () => (dataDir = await mkdtemp(join(tmpdir(), 'config-'))));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** The built server as `npm start` runs it, with only the variables given (plus PATH). */
function startServer(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const production = { NODE_ENV: 'production', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), PUBLIC_BASE_URL: 'https://credentials.example.edu' };

describe('a bad configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number from 0 to 65535, got "abc"'],
    [{ PORT: '70000' }, 'PORT must be a whole number from 0 to 65535, got "70000"'],
    [{ SMTP_URL: 'mail.example.edu:25' }, 'SMTP_URL must be a URL like smtp://host:port'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"'],
    [{ NODE_ENV: 'prod' }, 'NODE_ENV must be one of development, production, test; got "prod"'],
    [{ ...production, PUBLIC_BASE_URL: '' }, 'PUBLIC_BASE_URL must be set in production'],
    [{ JSON_BODY_LIMIT: 'lots' }, 'JSON_BODY_LIMIT must be a size like 100kb, 1mb or 1048576, got "lots"'],
    [{ PUBLIC_BASE_URL: 'credentials.example.edu' }, 'PUBLIC_BASE_URL must be a URL like https://credentials.example.edu'],
    [{ FILE_STORAGE: 's3' }, 'S3_BUCKET must be set when FILE_STORAGE=s3 (see docs/deploy.md)'],
    [{ S3_BUCKET: 'Credentials_Files' }, 'S3_BUCKET must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens'],
    [{ S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'AKIA' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together'],
  ])('%j stops the server with exit code 2 and one line naming the variable, before anything starts', async (env, expected) => {
    const result = await startServer(env);
    expect(result.code).toBe(2);
    const [heading, problem, ...more] = result.stderr.trimEnd().split('\n');
    expect([heading, more]).toEqual(['Configuration has a problem; nothing was started:', []]);
    expect(problem!.startsWith(`  - ${expected}`)).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(result.stdout).toBe('');
    expect(await readdir(dataDir)).toEqual([]); // no database was initialised
  });

  it('reports every bad variable at once', async () => {
    const result = await startServer({ PORT: 'abc', SMTP_URL: 'nope', LOG_LEVEL: 'verbose', NODE_ENV: 'prod', DB_POOL_MAX: '0' });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('Configuration has 5 problems; nothing was started:');
    for (const name of ['PORT', 'SMTP_URL', 'LOG_LEVEL', 'NODE_ENV', 'DB_POOL_MAX']) {
      expect(lines.filter((line) => line.startsWith(`  - ${name} `))).toHaveLength(1);
    }
  });

  it('in production names both missing secrets of the deployment', async () => {
    const result = await startServer({ NODE_ENV: 'production' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('  - KEY_ENCRYPTION_KEY must be set in production');
    expect(result.stderr).toContain('  - PUBLIC_BASE_URL must be set in production');
  });

  it('never echoes the value of a secret variable', () => {
    const secretUrl = 'smtp//mailer:hunter2-password@mail.example.edu';
    const error = catchConfigError({ SMTP_URL: secretUrl, DATABASE_URL: 'mysql://root:hunter2-password@db', KEY_ENCRYPTION_KEY: 'hunter2-password' });
    expect(error.problems.map((problem) => problem.split(' ')[0])).toEqual(['DATABASE_URL', 'SMTP_URL', 'KEY_ENCRYPTION_KEY']);
    expect(error.message).not.toContain('hunter2');
  });
});

function catchConfigError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('a good configuration', () => {
  it('applies the defaults, treats empty values as unset and trims a trailing slash of PUBLIC_BASE_URL', () => {
    const config = loadConfig({ PORT: '', PUBLIC_BASE_URL: 'https://credentials.example.edu/', NOTIFICATION_WORKER: 'off' });
    expect(config).toMatchObject({ env: 'development', port: 4000, logLevel: 'info', jsonBodyLimit: '1mb', notificationWorker: false });
    expect(config.publicBaseUrl).toBe('https://credentials.example.edu');
  });

  it('in production with its secrets and public origin is accepted', () => {
    expect(loadConfig(production)).toMatchObject({ env: 'production', publicBaseUrl: production.PUBLIC_BASE_URL });
  });

  it('waits for 12 anchoring confirmations in production, but 1 on the embedded chain (it mines a block per transaction only)', () => {
    expect(loadConfig({ ...production, ANCHOR_RPC_URL: 'https://rpc.example' }).anchoring?.confirmations).toBe(12);
    expect(loadConfig({ ...production, ANCHOR_RPC_URL: 'embedded' }).anchoring?.confirmations).toBe(1);
    expect(loadConfig({ ...production, ANCHOR_RPC_URL: 'embedded', ANCHOR_CONFIRMATIONS: '3' }).anchoring?.confirmations).toBe(3);
  });
});

describe('the configuration table (docs/configuration.md)', () => {
  it('documents exactly the variables of the schema', async () => {
    const table = await readFile('docs/configuration.md', 'utf8');
    const firstCells = table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|')[1]!);
    const documented = firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect([...documented].sort()).toEqual([...VARIABLE_NAMES].sort());
  });
});
