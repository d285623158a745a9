// Jest loads global setup outside its ESM transform, so this file uses the compiled support code
// (`npm test` builds first). One PostgreSQL serves the whole run; each test file clones a database.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROLES_VARIABLE, SERVER_URL_VARIABLE, startTestCluster, TEMPLATE_VARIABLE } from '../../dist/test/support/cluster.js';

export default async function globalSetup() {
  const cluster = await startTestCluster(process.env.DATABASE_URL);
  globalThis.testCluster = cluster;
  process.env[SERVER_URL_VARIABLE] = cluster.serverUrl;
  process.env[TEMPLATE_VARIABLE] = cluster.template;
  process.env[ROLES_VARIABLE] = JSON.stringify(cluster.roles);
  // Every service, worker and CLI process a test starts compiles the same modules again: Node's on-disk
  // compile cache (keyed by file content) spares the later ones most of that (about a fifth of a start).
  process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'credential-service-node-compile-cache');
}
