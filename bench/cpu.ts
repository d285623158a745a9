/**
 * CPU time actually spent, per side: this process's main thread (the servers under test; the load
 * generator runs on its own thread) and the embedded PostgreSQL. On a shared 2-core machine
 * throughput moves with everyone else's load, CPU time per request much less.
 */
import { readdir, readFile } from 'node:fs/promises';

const TICK_MS = 10; // Linux reports /proc CPU times in USER_HZ = 100 ticks a second

export interface CpuSample {
  serverMs: number;
  postgresMs?: number;
}

interface ProcStat {
  ppid: number;
  ownMs: number;
  reapedMs: number;
}

async function procStat(pid: number | string): Promise<ProcStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  // Fields after the parenthesised command name: state ppid ... utime(11) stime(12) cutime(13) cstime(14).
  const fields = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { ppid: fields[1]!, ownMs: (fields[11]! + fields[12]!) * TICK_MS, reapedMs: (fields[13]! + fields[14]!) * TICK_MS };
}

/** The postmaster and its backends; a backend that exited is counted in the postmaster's reaped time. */
export async function postgresCpuMs(postmasterPid: number): Promise<number | undefined> {
  const postmaster = await procStat(postmasterPid);
  if (!postmaster) return undefined;
  let total = postmaster.ownMs + postmaster.reapedMs;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await procStat(entry);
    if (stat?.ppid === postmasterPid) total += stat.ownMs;
  }
  return total;
}

/** CPU ms another process (all its threads) has used so far; undefined once it is gone. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  return (await procStat(pid))?.ownMs;
}

/**
 * CPU ms each kind of thread of another process has used so far, by thread name: `MainThread` (the
 * event loop), `WorkerThread` (worker_threads), `V8Worker` (GC and compiler helpers), libuv's pool
 * (`libuv-worker`) and the rest. A thread that exited is no longer counted.
 */
export async function threadCpuMs(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const [stat, name] = await Promise.all([procStat(`${pid}/task/${task}`), readFile(`/proc/${pid}/task/${task}/comm`, 'utf8').catch(() => '?')]);
    if (stat) byName.set(name.trim(), (byName.get(name.trim()) ?? 0) + stat.ownMs);
  }
  return byName;
}

/** The postmaster's pid from the cluster's postmaster.pid, when the cluster is local to this machine. */
export async function cpuSample(postgresPid: number | undefined): Promise<CpuSample> {
  return { serverMs: await mainThreadCpuMs(), postgresMs: postgresPid ? await postgresCpuMs(postgresPid) : undefined };
}

/** This process's main thread: `process.threadCpuUsage` where Node has it (24), else /proc (its task id is the pid; 10 ms ticks). */
async function mainThreadCpuMs(): Promise<number> {
  const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (threadCpuUsage) {
    const { user, system } = threadCpuUsage.call(process);
    return (user + system) / 1000;
  }
  return (await procStat(`${process.pid}/task/${process.pid}`))?.ownMs ?? 0;
}

/** CPU µs per request on each side between two samples. */
export function perRequest(before: CpuSample, after: CpuSample, requests: number): { serverUs: number; postgresUs?: number } {
  const per = (ms: number) => (requests > 0 ? (1000 * ms) / requests : 0);
  const postgres = before.postgresMs !== undefined && after.postgresMs !== undefined ? per(after.postgresMs - before.postgresMs) : undefined;
  return { serverUs: per(after.serverMs - before.serverMs), postgresUs: postgres };
}
