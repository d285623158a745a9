import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * ARCHITECTURE.md describes the code as it is: every file or folder it names in backticks exists, and
 * every code name it mentions (`CertificateService.create`, `jsonBody`, `issue(ctx, uuid)`) is declared
 * somewhere in src/ or rest-compat/ — as an export, a function, a class member or a property — or in
 * the generated GraphQL schema.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const CODE_FOLDERS = ['src', 'rest-compat'];

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, folder), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name)).map((entry) => path.join(entry.parentPath, entry.name));
}

/** `src/db/`, `rest-compat/router.ts`, `eslint.config.js`: a folder (trailing slash) or a file (an extension). */
const isPath = (token: string) => /^[\w<>-][\w.<>/-]*(\/|\.(ts|tsx|js|mjs|json|graphql))$/.test(token);
/** `Name`, `name.member`, `name(args)`: a token that reads as code and names something of ours. */
const CODE_NAME = /^([A-Za-z_$][\w$]*)((?:\.[A-Za-z_$][\w$]*)*)(\(.*\))?$/;

function codeNameOf(token: string): string | undefined {
  const match = CODE_NAME.exec(token);
  if (!match) return undefined;
  const [, head, members, call] = match;
  const last = members ? members.split('.').pop()! : head!;
  // Plain lower-case words (`finish`, `issued`, `where`) are field and state names, not code.
  return members || call || /[A-Z]/.test(head!) ? last : undefined;
}

function declares(source: string, name: string): boolean {
  const escaped = name.replace(/\$/g, '\\$');
  return [
    new RegExp(`\\b(function\\*?|class|const|let|var|type|interface|enum)\\s+${escaped}\\b`),
    new RegExp(`^\\s*(?:(?:public|private|protected|static|async|readonly|override|declare|get|set)\\s+)*${escaped}\\s*[(<:=?!]`, 'm'),
    new RegExp(`export\\s*\\{[^}]*\\b${escaped}\\b`),
  ].some((pattern) => pattern.test(source));
}

describe('ARCHITECTURE.md', () => {
  it('names only files, folders and code names that exist', async () => {
    const text = await readFile(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const tokens = [...new Set([...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim()))];
    const files = (await Promise.all(CODE_FOLDERS.map(sourceFiles))).flat();
    // GraphQL operation names count as code names too: the SDL declares them.
    const sources = await Promise.all([...files, path.join(ROOT, 'schema/schema.graphql')].map((file) => readFile(file, 'utf8')));
    const missing: string[] = [];
    for (const token of tokens) {
      if (isPath(token)) {
        if (token.includes('<')) continue; // a pattern such as src/<domain>/<name>.entity.ts
        const candidates = [token, `src/${token}`, ...files.filter((file) => path.basename(file) === token)];
        if (!candidates.some((candidate) => existsSync(path.resolve(ROOT, candidate)))) missing.push(`file ${token}`);
        continue;
      }
      const name = codeNameOf(token);
      if (name && !sources.some((source) => declares(source, name))) missing.push(`code name ${token}`);
    }
    expect(missing).toEqual([]);
  });
});
