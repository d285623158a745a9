import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { diplomaPdf } from './support/pdf.js';
import { provisionClient, startTestService, type TestService } from './support/service.js';

const run = promisify(execFile);
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** The shell block the README marks with `<!-- walkthrough:<name> -->`, exactly as a reader copies it. */
async function walkthrough(name: string): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const block = new RegExp(`<!-- walkthrough:${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(readme);
  if (!block) throw new Error(`README has no walkthrough:${name} block`);
  return block[1]!;
}

/** Runs a walk-through with bash in a fresh directory holding diploma.pdf, as a new tenant's client. */
async function walk(name: string, tenant: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'walkthrough-'));
  try {
    await writeFile(join(directory, 'diploma.pdf'), await diplomaPdf(`Walk-through ${name}`));
    const { clientId, clientSecret } = await provisionClient(service.orm, tenant);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', await walkthrough(name)], {
      cwd: directory,
      env: { PATH: process.env.PATH, BASE: service.url, TENANT: tenant, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret },
    });
    return stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('the README walk-through', () => {
  it('issues a certificate over REST from a token to the verification page', async () => {
    const output = await walk('rest', 'walk-rest');
    expect(output).toContain('"status": "issued"');
    expect(output).toMatch(/"type": "certificate"[\s\S]*"type": "transcript"|"type": "transcript"[\s\S]*"type": "certificate"/);
    expect(output.trim().split('\n').at(-1)).toBe('Maria Oliveira');
  });

  it('issues a certificate over GraphQL the same way', async () => {
    const output = await walk('graphql', 'walk-graphql');
    expect(output).toContain('"status": "issued"');
    expect(output.trim().split('\n').at(-1)).toBe('João Souza');
  });
});
