import { spawn } from 'node:child_process';

export interface DccRegistry {
  name: string;
  type: 'dcc-legacy';
  url: string;
}

/** @digitalcredentials/verifier-core on each credential (test/support/dcc-verifier-process.mjs, one child process trusting `caFile`). */
export async function dccVerify(jobs: { credential: object; registries: DccRegistry[] }[], caFile: string): Promise<any[]> {
  const env = { ...process.env, NODE_OPTIONS: '--dns-result-order=ipv4first', NODE_EXTRA_CA_CERTS: caFile };
  const child = spawn(process.execPath, ['test/support/dcc-verifier-process.mjs'], { stdio: ['pipe', 'pipe', 'inherit'], env });
  child.stdin.end(JSON.stringify(jobs));
  let output = '';
  for await (const chunk of child.stdout) output += chunk;
  return JSON.parse(output);
}
