import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Tenant scoping has one home, src/db/tenant-scope.ts: no other file turns the tenant filter off (by its
 * constant or its name; public reads call `acrossTenants`) or reads its argument (`tenantOf`), so a
 * reviewer auditing tenancy reads one file and greps two names.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const HOME = path.join(ROOT, 'src/db/tenant-scope.ts');
const OUTSIDE_THE_SCOPE_HOME = /\[\s*TENANT_FILTER\s*\]\s*:\s*false|\btenant['"]?\s*:\s*false|getFilterParams/;

it('only tenant-scope.ts turns the tenant filter off or reads its argument', async () => {
  const offenders: string[] = [];
  for (const folder of ['src', 'rest-compat']) {
    const entries = await readdir(path.join(ROOT, folder), { withFileTypes: true, recursive: true });
    for (const entry of entries.filter((file) => file.isFile() && /\.tsx?$/.test(file.name))) {
      const file = path.join(entry.parentPath, entry.name);
      if (file !== HOME && OUTSIDE_THE_SCOPE_HOME.test(await readFile(file, 'utf8'))) offenders.push(path.relative(ROOT, file));
    }
  }
  expect(offenders).toEqual([]);
});
