import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The service's own package.json, found upwards from this module (src/ when run by tests, dist/src/ when built). */
function ownPackage(): { name: string; version: string } {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name: string; version: string };
      if (manifest.name === 'credential-service') return manifest;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = path.dirname(folder);
    if (parent === folder) return { name: 'credential-service', version: 'unknown' };
    folder = parent;
  }
}

export const SERVICE_VERSION = ownPackage().version;
