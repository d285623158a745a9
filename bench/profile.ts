import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const TOP = Number(process.env.BENCH_PROFILE_TOP || 15);

/** BENCH_PROFILE=all profiles every case; otherwise a comma list of words that case names contain. */
export function shouldProfile(name: string): boolean {
  const wanted =
    process.env.BENCH_PROFILE?.split(',')
      .map((word) => word.trim().toLowerCase())
      .filter(Boolean) ?? [];
  return wanted.includes('all') || wanted.some((word) => name.toLowerCase().includes(word));
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + '/dist/'.length) : url.replace(/^file:\/\//, '');
}

/** Where a frame's code lives: an npm package, node itself, this service, or a V8 pseudo-frame. */
function area(url: string, functionName: string): string {
  if (!url) return functionName || '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules < 0) return url.includes('/dist/') ? `service: ${shortUrl(url).split('/').slice(0, 2).join('/')}` : url;
  const [scope, name] = url.slice(modules + 'node_modules/'.length).split('/');
  return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
}

/** Self time in ms per key, heaviest first. */
function selfTimes(profile: Profile, keyOf: (node: ProfileNode) => string): [string, number][] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const key = keyOf(byId.get(id)!);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

function printShare(title: string, entries: [string, number][], total: number): void {
  console.log(`  ${title}`);
  for (const [key, ms] of entries.slice(0, TOP)) console.log(`    ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`);
}

function summarize(name: string, profile: Profile): void {
  const frames = selfTimes(
    profile,
    ({ callFrame: { functionName, url, lineNumber } }) => `${functionName || '(anonymous)'}  ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`,
  );
  const areas = selfTimes(profile, ({ callFrame: { functionName, url } }) => area(url, functionName));
  const total = frames.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`\nCPU profile of the server's thread during "${name}" (self time, ${(total / 1000).toFixed(1)} s sampled)`);
  printShare('by package', areas, total);
  printShare('top frames', frames, total);
}

/** Runs `work` under the V8 sampling profiler of this (the server's) thread and prints where time went. */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    session.disconnect();
    const file = path.join(tmpdir(), `bench-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${Date.now()}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    summarize(name, profile);
    console.log(`  full profile: ${file} (open in Chrome DevTools)`);
  }
}
