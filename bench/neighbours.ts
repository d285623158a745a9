/**
 * `npm run bench -- hostile` (second part): can one tenant or one anonymous client slow the others?
 * Three saturation scenarios against the service at its DEFAULT limits, each run twice in one go —
 * the victims alone, then the victims with the attack — reporting the victims' p50/p99 both ways, the
 * longest event-loop block of the server in each phase, and the server's RSS (start, peak, a minute after).
 *   templates: a tenant lists 100 templates at the 64 KiB `design_config` cap (and some legacy 1 MB rows)
 *              24 at a time, REST and GraphQL; victims: another tenant's lists and writes.
 *   public:    one address verifies a 19 MB laborious PDF and another a credential with ~1,500 repeated
 *              @contexts, each at 30 a minute; victims: another tenant's issuance, other addresses'
 *              baked-badge downloads and credential verifications.
 *   webhooks:  a tenant registers 100 endpoints that never answer and uploads files (each upload an
 *              event for every endpoint); victim: another tenant's webhook, from its upload to arrival.
 * BENCH_NEIGHBOUR_SECONDS (30) per phase; BENCH_NEIGHBOUR_SCENARIOS=templates,public,webhooks picks some;
 * BENCH_NEIGHBOUR_CONTROL=1 leaves the attack out of the second phase; BENCH_NEIGHBOUR_TRACE=<file> logs
 * every request and the server's event-loop blocks over 30 ms; BENCH_NEIGHBOUR_DURABLE=1 makes commits wait
 * for the disk (they do not by default, see DURABLE).
 * RESPONSE_*, RATE_LIMIT_RESPONSE_* and REQUESTS_IN_FLIGHT_PER_TENANT settings in the environment reach the service (the rest of its
 * limits stay at their defaults), so a budget can be tried without a rebuild.
 * Load comes from child processes (bench/neighbour-load.ts), attackers and victims in separate ones.
 * Memory diagnosis (docs/benchmarks.md, Neighbours): run `node --expose-gc dist/bench/main.js hostile` to
 * see what a full GC and a memory-reducing one leave a minute after the load; BENCH_MEMORY_MAPS=1 adds the
 * resident mappings by kind (/proc/self/smaps), BENCH_HEAP_SNAPSHOT=<file> writes a heap snapshot there.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance as nodePerformance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import pg from 'pg';
import QRCode from 'qrcode';
import { appendSignature, laboriousPdf, signWith, strangerKey } from '../test/support/hostile-pdf.js';
import { seedIssuances } from './issuance.js';
import type { Plan, RequestSpec, Stream, StreamReport } from './neighbour-load.js';
import { memoryReducingCollection } from '../src/health/idle-memory.js';
import { addTenant, openBenchEnv, type BenchEnv, type TenantAccess } from './support.js';

const collectGarbage = memoryReducingCollection();

const SECONDS = Number(process.env.BENCH_NEIGHBOUR_SECONDS || 30);
/** Which scenarios run (comma-separated keys); all by default. */
const ONLY = process.env.BENCH_NEIGHBOUR_SCENARIOS?.split(',');
const IDLE_SECONDS = 60;
/**
 * BENCH_NEIGHBOUR_CONTROL=1: the second phase runs without the attack, so the table shows how far two
 * undisturbed phases of the same victims differ on this machine (what a ratio can resolve).
 */
const CONTROL = process.env.BENCH_NEIGHBOUR_CONTROL === '1';
/**
 * BENCH_NEIGHBOUR_PLAIN_BURST=1: in the templates scenario the attacker sends its 24 requests at a time
 * for small answers (its two institutions), within its API rate limit: what any burst costs the others,
 * with no large field to meter.
 */
const PLAIN_BURST = process.env.BENCH_NEIGHBOUR_PLAIN_BURST === '1';
/**
 * BENCH_NEIGHBOUR_DURABLE=1: commits wait for the disk's flush, as in production. By default they do not:
 * on the development VM a WAL flush stalled every request for 0.2–1.5 s about once a run, with no attack
 * (two phases of the same victims differed up to 14× at p99), which no ratio can see through
 * (docs/benchmarks.md, Neighbours, session 20).
 */
const DURABLE = process.env.BENCH_NEIGHBOUR_DURABLE === '1';
/** Victims' traffic before the measured phases, not recorded: the first requests of a cold path are not what an attack changes. */
const WARM_UP_SECONDS = 3;
/** How long after a phase a victim's webhook may still arrive and be counted. */
const ARRIVAL_GRACE_SECONDS = 30;
const TEMPLATE_BYTES = 63 * 1024;
const LEGACY_TEMPLATE_BYTES = 1024 * 1024;

type Json = Record<string, any>;

interface Phase {
  victims: StreamReport[];
  attackers: StreamReport[];
  loopMaxMs: number;
  /** CPU seconds the machine spent in the phase, by whom (Linux; undefined elsewhere). */
  cpu?: CpuSeconds;
  arrived?: { name: string; latencies: number[]; missing: number };
}

interface Scenario {
  key: 'templates' | 'public' | 'webhooks';
  name: string;
  /** Victim streams for one phase (fresh single-use data each call). */
  victims(): Promise<Stream[]>;
  attackers(): Promise<Stream[]>;
  /** Requests of the attack's kinds sent once before the phases, so its first burst does not also pay for cold code. */
  warmUp?(): Promise<void>;
  /** Extra victim rows computed by the parent (webhook arrival), given the victims' reports. */
  arrivals?(victims: StreamReport[]): Promise<{ name: string; latencies: number[]; missing: number }>;
}

async function api(access: TenantAccess, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${access.url}/api/v1${route}`, {
    method,
    headers: { ...access.auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text).data;
}

async function uploadBytes(access: TenantAccess, bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append('files[]', new Blob([new Uint8Array(bytes)]), name);
  const response = await fetch(`${access.url}/api/v1/files`, { method: 'POST', headers: access.auth, body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { uuid: string }[] }).data[0]!.uuid;
}

function runLoad(url: string, streams: Stream[], seconds = SECONDS): Promise<StreamReport[]> {
  if (streams.length === 0) return Promise.resolve([]);
  const plan: Plan = { url, seconds, streams };
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'neighbour-load.js');
  const child = spawn(process.execPath, [script], { env: { ...process.env, NEIGHBOUR_PLAN: JSON.stringify(plan) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(output) as StreamReport[]) : reject(new Error(`neighbour load exited with ${code}`))));
  });
}

async function runPhase(url: string, scenario: Scenario, attacked: boolean): Promise<Phase> {
  const victims = await scenario.victims();
  const attackers = attacked && !CONTROL ? await scenario.attackers() : [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const blocks = traceBlocks();
  const cpuBefore = cpuSeconds();
  try {
    const [victimReports, attackerReports] = await Promise.all([runLoad(url, victims), runLoad(url, attackers)]);
    const cpu = cpuBefore && cpuSince(cpuBefore);
    return { victims: victimReports, attackers: attackerReports, loopMaxMs: loop.max / 1e6, cpu, arrived: await scenario.arrivals?.(victimReports) };
  } finally {
    loop.disable();
    clearInterval(blocks);
  }
}

/**
 * With BENCH_NEIGHBOUR_TRACE, the server's event-loop blocks over 30 ms go to the trace too (epoch ms at
 * their end, length, and the monotonic clock's µs, which CPU profiles use), with how much of the block the main thread ran and how long it waited for a core
 * (/proc/thread-self/schedstat, Linux): a block the thread spent waiting is the machine's CPU taken by
 * others (the database, workers), not work of its own.
 */
function traceBlocks(): NodeJS.Timeout | undefined {
  const trace = process.env.BENCH_NEIGHBOUR_TRACE;
  if (!trace) return undefined;
  let last = performance.now();
  let lastSched = threadSchedule();
  return setInterval(() => {
    const now = performance.now();
    const sched = threadSchedule();
    if (now - last > 40) {
      const ran = sched && lastSched ? ((sched.ranNs - lastSched.ranNs) / 1e6).toFixed(1) : '-';
      const waited = sched && lastSched ? ((sched.waitedNs - lastSched.waitedNs) / 1e6).toFixed(1) : '-';
      appendFileSync(
        trace,
        `block\tserver\t${Date.now()}\t${(now - last - 10).toFixed(1)}\tran ${ran} ms\twaited for a core ${waited} ms\t${process.hrtime.bigint() / 1000n}\n`,
      );
    }
    last = now;
    lastSched = sched;
  }, 10);
}

interface CpuSeconds {
  mainThread: number;
  otherThreads: number;
  database: number;
  load: number;
}

/** utime, stime, cutime, cstime of a /proc stat file, in seconds (clock ticks of 100 Hz). */
function procTimes(file: string): { own: number; reaped: number; comm: string; ppid: number } | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // After the command: state, ppid, … utime is the 14th field of the line, the 12th after the command.
    const tick = (index: number) => Number(fields[index]) / 100;
    return { own: tick(11) + tick(12), reaped: tick(13) + tick(14), comm, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/**
 * Where the machine's CPU time has gone so far: this process's main thread (the server's event loop) and
 * its other threads (workers, libuv, V8's helpers), the database (the embedded PostgreSQL this process
 * started and the backends it reaped) and the load processes (alive, or reaped by this process).
 */
function cpuSeconds(): CpuSeconds | undefined {
  const self = procTimes('/proc/self/stat');
  const main = procTimes(`/proc/self/task/${process.pid}/stat`);
  if (!self || !main) return undefined;
  const processes = new Map<number, NonNullable<ReturnType<typeof procTimes>>>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const times = procTimes(`/proc/${entry}/stat`);
    if (times) processes.set(Number(entry), times);
  }
  const descends = (pid: number): boolean => {
    for (let at = processes.get(pid)?.ppid; at !== undefined && at > 1; at = processes.get(at)?.ppid) if (at === process.pid) return true;
    return false;
  };
  let database = 0;
  let load = self.reaped;
  for (const [pid, times] of processes) {
    if (!descends(pid)) continue;
    if (times.comm === 'postgres') database += times.own + times.reaped;
    else load += times.own;
  }
  return { mainThread: main.own, otherThreads: self.own - main.own, database, load };
}

function cpuSince(before: CpuSeconds): CpuSeconds | undefined {
  const now = cpuSeconds();
  return (
    now && {
      mainThread: now.mainThread - before.mainThread,
      otherThreads: now.otherThreads - before.otherThreads,
      database: now.database - before.database,
      load: now.load - before.load,
    }
  );
}

/** The calling thread's time on a core and waiting for one, in ns (Linux only). */
function threadSchedule(): { ranNs: number; waitedNs: number } | undefined {
  try {
    const [ran, waited] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return { ranNs: Number(ran), waitedNs: Number(waited) };
  } catch {
    return undefined;
  }
}

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : NaN;
};
const answers = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

function printScenario(scenario: Scenario, quiet: Phase, attacked: Phase): void {
  const rows = (phase: Phase) => [
    ...phase.victims.map((report) => ({ name: report.name, latencies: report.latencies, note: answers(report.statuses) })),
    ...(phase.arrived ? [{ ...phase.arrived, note: `${phase.arrived.missing} not arrived within ${ARRIVAL_GRACE_SECONDS} s` }] : []),
  ];
  const before = rows(quiet);
  const after = rows(attacked);
  console.log(`\nneighbours: ${scenario.name} (${SECONDS} s victims alone, then ${SECONDS} s with the attack)`);
  console.table(
    before.map((row, i) => {
      const under = after[i]!;
      const [p50, p99, q50, q99] = [
        percentile(row.latencies, 0.5),
        percentile(row.latencies, 0.99),
        percentile(under.latencies, 0.5),
        percentile(under.latencies, 0.99),
      ];
      return {
        victim: row.name,
        'alone p50/p99 ms': `${p50.toFixed(0)} / ${p99.toFixed(0)}`,
        'attacked p50/p99 ms': `${q50.toFixed(0)} / ${q99.toFixed(0)}`,
        'x p50': (q50 / p50).toFixed(2),
        'x p99': (q99 / p99).toFixed(2),
        'answers (attacked)': under.note,
      };
    }),
  );
  for (const report of attacked.attackers) {
    console.log(
      `  attacker ${report.name}: ${report.latencies.length} requests, p50 ${percentile(report.latencies, 0.5).toFixed(0)} ms, answers ${answers(report.statuses)}`,
    );
  }
  console.log(`  server event loop, longest block: ${quiet.loopMaxMs.toFixed(0)} ms alone, ${attacked.loopMaxMs.toFixed(0)} ms attacked`);
  const cpu = (phase: Phase) =>
    phase.cpu
      ? `server main thread ${phase.cpu.mainThread.toFixed(1)}, its other threads ${phase.cpu.otherThreads.toFixed(1)}, database ${phase.cpu.database.toFixed(1)}, load processes ${phase.cpu.load.toFixed(1)}`
      : 'not measured';
  console.log(`  CPU seconds alone: ${cpu(quiet)}; attacked: ${cpu(attacked)}`);
}

function templatesScenario(env: BenchEnv, attacker: TenantAccess, victim: TenantAccess): Scenario {
  let lists: RequestSpec[] = [];
  // BENCH_NEIGHBOUR_PLAIN_BURST: the same 24 requests at a time, for the attacker's two institutions, no large field.
  const plainLists = (): RequestSpec[] => [
    { method: 'GET', path: '/api/v1/institutions?per_page=100', headers: attacker.auth },
    {
      method: 'POST',
      path: '/graphql',
      headers: { ...attacker.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ institutions(first: 100) { nodes { uuid name } } }' }),
    },
  ];
  const victimRequests: RequestSpec[] = [
    { method: 'GET', path: '/api/v1/enrollments?per_page=20&includes[student]=1&includes[course]=1', headers: victim.auth },
    {
      method: 'POST',
      path: '/graphql',
      headers: { ...victim.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ students(first: 20) { totalCount nodes { uuid name email } } }' }),
    },
  ];
  return {
    key: 'templates',
    name: 'one tenant lists its largest templates, 24 at a time',
    async victims() {
      const creates = Array.from({ length: 200 }, (_, i) => ({
        method: 'POST' as const,
        path: '/api/v1/students',
        headers: { ...victim.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Neighbour ${i}`, email: `n${Date.now()}-${i}@victim.test`, date_of_birth: '2001-01-01' }),
      }));
      return [
        { name: 'REST enrollments page (another tenant)', role: 'victim', everyMs: 250, requests: [victimRequests[0]!] },
        { name: 'GraphQL students page (another tenant)', role: 'victim', everyMs: 250, requests: [victimRequests[1]!] },
        { name: 'REST create student (another tenant)', role: 'victim', everyMs: 500, requests: creates, once: true },
      ];
    },
    async attackers() {
      if (lists.length === 0) {
        const capped = await api(attacker, 'POST', '/institutions', { name: 'Template Hoarders', country: 'BR' });
        const legacy = await api(attacker, 'POST', '/institutions', { name: 'Legacy Templates', country: 'BR' });
        const create = (institution: string, i: number) =>
          api(attacker, 'POST', '/certificate-templates', {
            institution_uuid: institution,
            name: `Template ${i}`,
            version: '1',
            path: `templates/${i}.pdf`,
            design_config: { notes: 'x'.repeat(TEMPLATE_BYTES) },
          });
        for (let i = 0; i < 100; i++) await create(capped.uuid, i);
        for (let i = 0; i < 20; i++) await create(legacy.uuid, i);
        // Rows stored before the 64 KiB limit existed: written behind the API's back.
        const client = new pg.Client({ connectionString: env.databaseUrl });
        await client.connect();
        await client.query(`update certificate_templates set design_config = jsonb_build_object('notes', repeat('y', $1::int)) where institution_uuid = $2`, [
          LEGACY_TEMPLATE_BYTES,
          legacy.uuid,
        ]);
        await client.end();
        const graphql = (institution: string) => ({
          method: 'POST' as const,
          path: '/graphql',
          headers: { ...attacker.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ certificateTemplates(first: 100, where: { institutionUuid: "${institution}" }) { nodes { uuid designConfig } } }` }),
        });
        lists = [
          { method: 'GET', path: `/api/v1/certificate-templates?per_page=100&where[institution_uuid]=${capped.uuid}`, headers: attacker.auth },
          graphql(capped.uuid),
          { method: 'GET', path: `/api/v1/certificate-templates?per_page=100&where[institution_uuid]=${legacy.uuid}`, headers: attacker.auth },
          graphql(legacy.uuid),
        ];
      }
      if (PLAIN_BURST) return [{ name: '24 small lists at a time', role: 'attacker', concurrency: 24, requests: plainLists() }];
      return [{ name: '24 template lists at a time', role: 'attacker', concurrency: 24, requests: lists }];
    },
    async warmUp() {
      const [stream] = await this.attackers();
      for (const request of stream!.requests) await runLoad(env.url, [{ ...stream!, concurrency: 1, requests: [request], once: true }], 1);
    },
  };
}

/**
 * A credential whose `@context` repeats the VC 2.0 context URL as often as the 64 KiB body cap allows:
 * JSON-LD processes every entry again (about 1,600 entries cost seconds of canonicalisation).
 */
function contextBomb(credential: Json): Json {
  const entry = 'https://www.w3.org/ns/credentials/v2';
  const room = 64 * 1024 - JSON.stringify({ ...credential, '@context': [] }).length - 16;
  return { ...credential, '@context': Array.from({ length: Math.floor(room / (entry.length + 3)) }, () => entry) };
}

async function publicScenario(victim: TenantAccess, dir: string): Promise<Scenario> {
  const image = await QRCode.toBuffer('Neighbour University badge', { type: 'png', width: 512 });
  const badgeImage = await uploadBytes(victim, image, 'badge.png');
  const institution = { name: 'Neighbour University', country: 'BR', email: 'registrar@neighbour.test', is_badges_enabled: true, badge_image_uuid: badgeImage };
  const { bodies } = await seedIssuances(victim, 3 * Math.ceil(SECONDS / 0.5) + 10, institution, `public${Date.now()}-`);
  const first = await api(victim, 'POST', '/certificates', JSON.parse(bodies.pop()!));
  const credential = await api(victim, 'GET', `/certificates/${first.uuid}/badges/credentials`);
  const pdfFile = path.join(dir, 'laborious.pdf');
  const pdf = appendSignature(laboriousPdf(90_000, 70), signWith(strangerKey()));
  await writeFile(pdfFile, pdf);
  const bombFile = path.join(dir, 'context-bomb.json');
  const bomb = contextBomb(credential);
  await writeFile(bombFile, JSON.stringify(bomb));
  const issuance = (body: string): RequestSpec => ({
    method: 'POST',
    path: '/api/v1/certificates',
    headers: { ...victim.auth, 'content-type': 'application/json' },
    body,
  });
  // Its size only: the bench process also hosts the service, so keeping the PDF would count in its memory.
  const pdfMegabytes = (pdf.length / 2 ** 20).toFixed(1);
  console.log(`\n(public scenario: the laborious PDF is ${pdfMegabytes} MB)`);
  return {
    key: 'public',
    name: 'anonymous clients verify laborious PDFs and credentials at the default limits',
    async victims() {
      return [
        {
          name: 'issuance POST /certificates finish: true (a tenant)',
          role: 'victim',
          everyMs: 500,
          requests: bodies.splice(0, Math.ceil(SECONDS / 0.5)).map(issuance),
          once: true,
        },
        {
          name: 'baked badge image.png (4 other addresses)',
          role: 'victim',
          localAddress: ['127.0.0.4', '127.0.0.6', '127.0.0.7', '127.0.0.8'],
          everyMs: 250,
          requests: [{ method: 'GET', path: `/ob/v2/assertions/${first.uuid}/image.png` }],
        },
        {
          name: 'POST /api/v1/badges/verify (5 other addresses)',
          role: 'victim',
          localAddress: ['127.0.0.5', '127.0.0.9', '127.0.0.10', '127.0.0.11', '127.0.0.12'],
          everyMs: 500,
          requests: [{ method: 'POST', path: '/api/v1/badges/verify', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credential) }],
        },
      ];
    },
    async attackers() {
      return [
        {
          name: `verify a ${pdfMegabytes} MB laborious PDF, 30/min`,
          role: 'attacker',
          localAddress: '127.0.0.2',
          everyMs: 2000,
          requests: [{ method: 'POST', path: '/api/v1/verify', headers: { 'content-type': 'application/pdf' }, bodyFile: pdfFile }],
        },
        {
          name: `verify a credential with ${(bomb['@context'] as string[]).length} @contexts, 30/min`,
          role: 'attacker',
          localAddress: '127.0.0.3',
          everyMs: 2000,
          requests: [{ method: 'POST', path: '/api/v1/badges/verify', headers: { 'content-type': 'application/json' }, bodyFile: bombFile }],
        },
      ];
    },
  };
}

/** Accepts connections and never answers. */
async function blackHole(): Promise<{ url: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Records when each delivery naming a file arrives. */
async function receiver(): Promise<{ url: string; arrivals: Map<string, number>; close(): void }> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const uuid = /"uuid":"([^"]+)"/.exec(body)?.[1];
      if (uuid && !arrivals.has(uuid)) arrivals.set(uuid, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, arrivals, close: () => server.close() };
}

async function webhookScenario(attacker: TenantAccess, victim: TenantAccess): Promise<Scenario & { close(): void }> {
  const dead = await blackHole();
  const healthy = await receiver();
  await api(victim, 'POST', '/webhooks', { url: healthy.url, events: ['file.uploaded'] });
  let registered = 0;
  let refused = 0;
  return {
    key: 'webhooks',
    name: 'one tenant’s 100 webhook endpoints never answer',
    async victims() {
      return [
        {
          name: 'upload (another tenant)',
          role: 'victim',
          everyMs: 250,
          requests: [{ method: 'POST', path: '/api/v1/files', headers: victim.auth, freshPdf: true }],
        },
      ];
    },
    async attackers() {
      if (registered + refused === 0) {
        for (let i = 0; i < 100; i++) {
          const response = await fetch(`${attacker.url}/api/v1/webhooks`, {
            method: 'POST',
            headers: { ...attacker.auth, 'content-type': 'application/json' },
            body: JSON.stringify({ url: `${dead.url}/${i}`, events: ['file.uploaded'] }),
          });
          await response.arrayBuffer();
          if (response.status === 201) registered++;
          else refused++;
        }
        console.log(`\n(webhooks scenario: ${registered} dead endpoints registered, ${refused} refused)`);
      }
      return [
        {
          name: `uploads, each an event for ${registered} dead endpoints`,
          role: 'attacker',
          everyMs: 200,
          requests: [{ method: 'POST', path: '/api/v1/files', headers: attacker.auth, freshPdf: true }],
        },
      ];
    },
    async arrivals(victims) {
      const uploads = victims.flatMap((report) => report.uploads);
      const deadline = Date.now() + ARRIVAL_GRACE_SECONDS * 1000;
      while (uploads.some((upload) => !healthy.arrivals.has(upload.uuid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      const latencies = uploads.filter((upload) => healthy.arrivals.has(upload.uuid)).map((upload) => healthy.arrivals.get(upload.uuid)! - upload.sentAt);
      return { name: 'its webhook: upload sent → delivery arrived', latencies, missing: uploads.length - latencies.length };
    },
    close() {
      dead.close();
      healthy.close();
    },
  };
}

const megabytes = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Where the process's memory is: V8's heap, buffers outside it, and the rest (native: threads, malloc arenas, code). */
const memoryBreakdown = (usage: NodeJS.MemoryUsage) =>
  `rss ${megabytes(usage.rss)} MB = heap ${megabytes(usage.heapTotal)} (used ${megabytes(usage.heapUsed)}) + external ${megabytes(usage.external)} (buffers ${megabytes(usage.arrayBuffers)}) + native ${megabytes(usage.rss - usage.heapTotal - usage.external)} MB`;

/** Resident MB of the process's mappings by kind (/proc/self/smaps): glibc's main heap, anonymous regions by size, files. */
async function mapsSummary(): Promise<string> {
  const text = await readFile('/proc/self/smaps', 'utf8');
  const kinds = new Map<string, number>();
  const counts = new Map<string, number>();
  let kind = '';
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const bytes = parseInt(header[2]!, 16) - parseInt(header[1]!, 16);
      const name = header[3]!;
      kind = name.startsWith('[')
        ? name
        : name
          ? name.includes('.so')
            ? 'libs'
            : name.includes('node')
              ? 'node binary'
              : 'files'
          : `anon ${bytes >= 2 ** 20 ? `${Math.round(bytes / 2 ** 20)}M` : `${Math.round(bytes / 1024)}K`}`;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    } else if (line.startsWith('Rss:')) kinds.set(kind, (kinds.get(kind) ?? 0) + Number(line.split(/\s+/)[1]) * 1024);
  }
  const total = [...kinds.values()].reduce((sum, bytes) => sum + bytes, 0);
  const top = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 14);
  return `${megabytes(total)} MB: ${top.map(([name, bytes]) => `${name}×${counts.get(name)} ${megabytes(bytes)}`).join(', ')}`;
}

export async function runNeighbourBench(): Promise<void> {
  const env = await openBenchEnv({
    limits: 'default',
    commitsWaitForFlush: DURABLE,
    env: {
      NOTIFICATION_WORKER: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => /^(RATE_LIMIT_RESPONSE|RESPONSE_|REQUESTS_IN_FLIGHT)/.test(name))),
    },
  });
  console.log(`neighbours: commits ${DURABLE ? 'wait' : 'do not wait (BENCH_NEIGHBOUR_DURABLE=1 to make them wait)'} for the disk's flush`);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-neighbours-'));
  const closers: (() => void)[] = [];
  try {
    const memoryAtStart = process.memoryUsage();
    if (process.env.BENCH_MEMORY_MAPS) console.log(`neighbours: maps at start ${await mapsSummary()}`);
    const rssAtStart = memoryAtStart.rss;
    let rssPeak = rssAtStart;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
    // One client per scenario and role: the API's rate limit counts per client.
    const tenants = async (label: string) => [await addTenant(env, `attacker-${label}`), await addTenant(env, `victim-${label}`)] as const;
    // Only the scenarios run are set up: the public one's issuances start document workers, whose
    // memory would otherwise count in a run of the others.
    const selected = (key: string) => !ONLY || ONLY.includes(key);
    const scenarios: Scenario[] = [];
    if (selected('templates')) {
      const [attacker, victim] = await tenants('templates');
      scenarios.push(templatesScenario(env, attacker, victim));
    }
    if (selected('public')) scenarios.push(await publicScenario((await tenants('public'))[1], dir));
    if (selected('webhooks')) {
      const [attacker, victim] = await tenants('webhooks');
      const hooks = await webhookScenario(attacker, victim);
      closers.push(() => hooks.close());
      scenarios.push(hooks);
    }
    try {
      for (const scenario of scenarios) {
        await scenario.warmUp?.();
        await runLoad(env.url, await scenario.victims(), WARM_UP_SECONDS);
        // The warm-up's garbage (two 6.3 MB pages in the templates scenario) is collected now, not in the middle of the undisturbed phase.
        await collectGarbage();
        const quiet = await runPhase(env.url, scenario, false);
        const attacked = await runPhase(env.url, scenario, true);
        printScenario(scenario, quiet, attacked);
      }
    } finally {
      clearInterval(sampler);
    }
    const rssAfterLoad = process.memoryUsage().rss;
    const loopAtRest = nodePerformance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const rssIdle = process.memoryUsage().rss;
    // No request arrives now: what keeps the loop busy is the service's own background work (and the bench's dead endpoints).
    const busyAtRest = nodePerformance.eventLoopUtilization(nodePerformance.eventLoopUtilization(), loopAtRest).utilization;
    console.log(`\nneighbours: event loop ${(busyAtRest * 100).toFixed(1)} % busy in the ${IDLE_SECONDS} s after the load, no request arriving`);
    console.log(`\nneighbours: memory at start ${memoryBreakdown(memoryAtStart)}; ${IDLE_SECONDS} s after the load ${memoryBreakdown(process.memoryUsage())}`);
    console.log(`neighbours: workers alive ${env.runtime.documents.size} document, ${env.runtime.badgeWorkers.size} badge`);
    // With --expose-gc: what a full GC leaves (live objects) against what V8 keeps (docs/benchmarks.md).
    const collect = (globalThis as { gc?: (options?: object) => void }).gc;
    if (collect) {
      collect();
      collect();
      console.log(`neighbours: after a forced full GC ${memoryBreakdown(process.memoryUsage())}`);
      if (process.env.BENCH_MEMORY_MAPS) console.log(`neighbours: maps ${await mapsSummary()}`);
      // Memory-reducing, as V8's memory reducer would run it: it also gives back the pages V8 pools.
      collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      console.log(`neighbours: after a last-resort GC, 3 s later ${memoryBreakdown(process.memoryUsage())}`);
    }
    if (process.env.BENCH_MEMORY_MAPS) console.log(`neighbours: maps ${await mapsSummary()}`);
    if (process.env.BENCH_HEAP_SNAPSHOT) console.log(`neighbours: heap snapshot ${writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT)}`);
    console.log(
      `\nneighbours: server RSS ${megabytes(rssAtStart)} MB at start, ${megabytes(rssPeak)} MB peak, ${megabytes(rssAfterLoad)} MB when the load stopped, ${megabytes(rssIdle)} MB ${IDLE_SECONDS} s later (${((rssIdle / rssAtStart - 1) * 100).toFixed(0)} % over the start)`,
    );
  } finally {
    for (const close of closers) close();
    await rm(dir, { recursive: true, force: true });
    await env.stop();
  }
}
