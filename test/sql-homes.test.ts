import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Every statement written by hand (SQL text, the query builder, the driver's connection) has one home per aggregate: its repository (`<name>.repository.ts`
 * beside the aggregate's entity), or src/db/ for the generic, entity-parametrised reads (lookups,
 * rows, listing, the page statement, loaders' batches) and the database's own plumbing. Services,
 * tasks, routes and resolvers reach the database through the ORM's typed entity API (find, nativeUpdate…,
 * which the tenant filter scopes) or a repository method, so auditing an aggregate's SQL means reading one file.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const HAND_WRITTEN_SQL = [/\bsqlRows\b/, /\.execute\s*[(<]/, /\bcreateQueryBuilder\b/, /\bgetKysely\b/, /\bgetConnection\s*\(/, /\bgetKnex\b/];
const isHome = (file: string) => file.startsWith('src/db/') || file.endsWith('.repository.ts');
const MIGRATIONS = /^src\/db\/migrations\//;

it('hand-written SQL lives only in repositories and src/db', async () => {
  const offenders: string[] = [];
  for (const folder of ['src', 'rest-compat']) {
    const entries = await readdir(path.join(ROOT, folder), { withFileTypes: true, recursive: true });
    for (const entry of entries.filter((file) => file.isFile() && /\.tsx?$/.test(file.name))) {
      const file = path.relative(ROOT, path.join(entry.parentPath, entry.name));
      if (isHome(file) || MIGRATIONS.test(file) || file.startsWith('src/documents/')) continue;
      const text = await readFile(path.join(ROOT, file), 'utf8');
      const found = HAND_WRITTEN_SQL.filter((pattern) => pattern.test(text)).map((pattern) => pattern.source);
      if (found.length > 0) offenders.push(`${file}: ${found.join(', ')}`);
    }
  }
  expect(offenders).toEqual([]);
});
