import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const example = `${root}examples/typed-client`;

/** Runs a package's command line with the Node running the tests (the system Node may be older). */
const node = (script: string, args: string[]) => run(process.execPath, [`${root}node_modules/${script}`, ...args], { cwd: example });

describe('the typed-client example', () => {
  it('generates operation types from schema/schema.graphql that its usage type-checks against', async () => {
    await rm(`${example}/generated`, { recursive: true, force: true });
    await node('@graphql-codegen/cli/esm/bin.js', ['--config', 'codegen.yml', '--silent']);
    const generated = await readFile(`${example}/generated/graphql.ts`, 'utf8');
    expect(generated).toContain('export type CreateInstitutionMutation');
    expect(generated).toContain('export type InstitutionsQuery');
    // tsc fails on a type error in client.ts, and on its @ts-expect-error if the types stopped refusing a bad call.
    await expect(node('typescript/bin/tsc', ['-p', 'tsconfig.json'])).resolves.toBeDefined();
  });
});
