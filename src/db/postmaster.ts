import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

/** What the files of a cluster's data directory say about its postmaster: none, starting/stopping, or ready. */
export interface PostmasterState {
  alive: boolean;
  /** Set once the postmaster accepts connections (postmaster.pid lines 4 and 8). */
  readyPort?: number;
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function postmaster(clusterDir: string): Promise<PostmasterState> {
  const lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const alive = pid > 0 && pidIsAlive(pid);
  const port = Number(lines[3]);
  return { alive, readyPort: alive && port && lines[7]?.trim() === 'ready' ? port : undefined };
}

/** The port the cluster was last started on, from PostgreSQL's own record of its command line (postmaster.opts). */
export async function lastPort(clusterDir: string): Promise<number | undefined> {
  const options = await fs.readFile(path.join(clusterDir, 'postmaster.opts'), 'utf8').catch(() => '');
  const port = Number(/"-p" "(\d+)"/.exec(options)?.[1]);
  return port > 0 ? port : undefined;
}

function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

export async function portIsFree(port: number): Promise<boolean> {
  return (await listenOn(port)) === port;
}

/** `preferred` when it is free, otherwise any free loopback port. */
export async function freePort(preferred?: number): Promise<number> {
  if (preferred && (await portIsFree(preferred))) return preferred;
  const port = await listenOn(0);
  if (!port) throw new Error('no free loopback port for the embedded PostgreSQL');
  return port;
}
