// `npm run cli` runs the built code; this rebuilds first only when a source file is newer than the
// last build (a checkout, an edit), so an operator's command starts in well under a second.
// With --not-in-production (`npm start`, `npm run worker`), NODE_ENV=production never builds: a
// deployment runs what `npm run build` produced, and says so when nothing was built.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SOURCES = ['src', 'rest-compat', 'bench', 'sdk', 'test/support', 'mikro-orm.config.ts', 'package.json', 'package-lock.json'];
const STAMP = path.join('dist', '.built');

function newest(entry) {
  let stats;
  try {
    stats = statSync(entry);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(entry).reduce((latest, name) => Math.max(latest, newest(path.join(entry, name))), stats.mtimeMs);
}

if (process.argv.includes('--not-in-production') && process.env.NODE_ENV === 'production') {
  if (existsSync(path.join('dist', 'src', 'main.js'))) process.exit(0);
  console.error('NODE_ENV=production runs the built code, and there is none: run `npm run build` first.');
  process.exit(1);
}

const built = newest(STAMP);
if (built === 0 || SOURCES.some((source) => newest(source) > built)) {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(STAMP, new Date().toISOString());
}
