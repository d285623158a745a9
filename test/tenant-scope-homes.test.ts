import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Reading across tenants has one home, `acrossTenants` (src/db/tenant-scope.ts): no other file turns the
 * tenant filter off, by its constant or by its name, so a reviewer auditing public reads greps one name.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const HOME = path.join(ROOT, 'src/db/tenant-scope.ts');
const TURNS_TENANT_FILTER_OFF = /\[\s*TENANT_FILTER\s*\]\s*:\s*false|\btenant['"]?\s*:\s*false/;

it('only acrossTenants turns the tenant filter off', async () => {
  const offenders: string[] = [];
  for (const folder of ['src', 'rest-compat']) {
    const entries = await readdir(path.join(ROOT, folder), { withFileTypes: true, recursive: true });
    for (const entry of entries.filter((file) => file.isFile() && /\.tsx?$/.test(file.name))) {
      const file = path.join(entry.parentPath, entry.name);
      if (file !== HOME && TURNS_TENANT_FILTER_OFF.test(await readFile(file, 'utf8'))) offenders.push(path.relative(ROOT, file));
    }
  }
  expect(offenders).toEqual([]);
});
