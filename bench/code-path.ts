/**
 * `npm run bench -- code-path`: which of the service's own files one request runs, for the list request
 * and the one-call issuance that ARCHITECTURE.md walks through. V8's precise coverage (in this process,
 * through node:inspector) is reset after two warm-up requests and taken after the measured one, so a file
 * counts when at least one of its functions ran for that request; the order is the order in which the
 * files' functions first ran, read from a second pass with a log point at every function that ran.
 */
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { openBenchEnv, postCreated, type BenchEnv } from './support.js';

const SOURCE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Request {
  name: string;
  send(env: BenchEnv, round: number): Promise<void>;
}

interface RanFunction {
  file: string;
  scriptId: string;
  offset: number;
}

/** The service's own files (src/, rest-compat/): path under the root, or undefined for anything else. */
function ownFile(url: string): string | undefined {
  if (!url.startsWith('file://')) return undefined;
  const file = path.relative(SOURCE_ROOT, fileURLToPath(url)).replace(/^dist\//, '');
  return /^(src|rest-compat)\//.test(file) ? file : undefined;
}

/** The functions of the service's own files that ran during `work` (a module's top level excepted). */
async function functionsRunDuring(session: Session, work: () => Promise<void>): Promise<RanFunction[]> {
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  const ran: RanFunction[] = [];
  for (const script of result) {
    const file = ownFile(script.url);
    if (!file) continue;
    for (const [index, fn] of script.functions.entries()) {
      if (index > 0 && fn.ranges[0]!.count > 0) ran.push({ file, scriptId: script.scriptId, offset: fn.ranges[0]!.startOffset });
    }
  }
  return ran;
}

/**
 * The files in the order the request enters them: a log point (a condition that records and never
 * pauses) at the start of every function that ran, then the same request again.
 */
async function filesInOrder(env: BenchEnv, session: Session, ran: RanFunction[], work: () => Promise<void>): Promise<string[]> {
  await session.post('Debugger.enable');
  const sources = new Map<string, string>();
  const breakpoints: string[] = [];
  for (const fn of ran) {
    if (!sources.has(fn.scriptId)) sources.set(fn.scriptId, (await session.post('Debugger.getScriptSource', { scriptId: fn.scriptId })).scriptSource);
    const before = sources.get(fn.scriptId)!.slice(0, fn.offset).split('\n');
    const condition = `((globalThis.__codePath ??= []).push(${JSON.stringify(fn.file)}), false)`;
    const { breakpointId } = await session.post('Debugger.setBreakpoint', {
      location: { scriptId: fn.scriptId, lineNumber: before.length - 1, columnNumber: before.at(-1)!.length },
      condition,
    });
    breakpoints.push(breakpointId);
  }
  // Setting the log points takes longer than the server keeps an idle connection: a fresh one.
  await fetch(`${env.url}/readyz`, { headers: { connection: 'close' } }).catch(() => undefined);
  const record = globalThis as { __codePath?: string[] };
  record.__codePath = [];
  try {
    await work();
    return record.__codePath.filter((file, i, all) => i === 0 || all[i - 1] !== file);
  } finally {
    for (const breakpointId of breakpoints) await session.post('Debugger.removeBreakpoint', { breakpointId });
    await session.post('Debugger.disable');
    delete record.__codePath;
  }
}

async function diplomaPdf(serial: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([842, 595]);
  page.drawText(`Diploma ${serial}`, { x: 60, y: 500, size: 24, font: await document.embedFont(StandardFonts.Helvetica) });
  return document.save();
}

async function upload(env: BenchEnv, serial: number): Promise<string> {
  const form = new FormData();
  form.append('files[]', new Blob([new Uint8Array(await diplomaPdf(serial))], { type: 'application/pdf' }), `diploma-${serial}.pdf`);
  const response = await fetch(`${env.url}/api/v1/files`, { method: 'POST', headers: env.auth, body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}`);
  return ((await response.json()) as { data: { uuid: string }[] }).data[0]!.uuid;
}

async function requests(env: BenchEnv): Promise<Request[]> {
  const institution = await postCreated(env, '/institutions', { name: 'Path University', country: 'BR' });
  const course = await postCreated(env, '/courses', { name: 'Paths', institution_uuid: institution.uuid, workload: 10, external_id: 'PATH-1' });
  for (let i = 0; i < 3; i++) {
    const student = await postCreated(env, '/students', { name: `Student ${i}`, email: `s${i}@example.org`, date_of_birth: '2000-01-01' });
    await postCreated(env, '/enrollments', { student_uuid: student.uuid, course_uuid: course.uuid, enrolled_at: '2025-02-01' });
  }
  const files = new Map<number, string>();
  for (let round = 0; round < 4; round++) files.set(round, await upload(env, round));
  return [
    {
      name: 'GET /api/v1/enrollments?includes[student]=1',
      async send() {
        const response = await fetch(`${env.url}/api/v1/enrollments?includes[student]=1`, { headers: env.auth });
        if (response.status !== 200) throw new Error(`list answered ${response.status}`);
        await response.arrayBuffer();
      },
    },
    {
      name: 'POST /api/v1/certificates (recipient, course_external_id, finish: true)',
      async send(_, round) {
        await postCreated(env, '/certificates', {
          course_external_id: 'PATH-1',
          file_uuid: files.get(round),
          finish: true,
          recipient: { email: `r${round}@example.org`, name: `Recipient ${round}`, date_of_birth: '2001-02-03' },
        });
      },
    },
  ];
}

const NO_BACKGROUND_WORK = { JOB_WORKER: 'off', EXPIRY_SWEEP_MS: '0', IDEMPOTENCY_SWEEP_MS: '0', FILE_PURGE_SWEEP_MS: '0', TOKEN_PURGE_MS: '0' };

export async function runCodePathBench(): Promise<void> {
  console.log('\ncode path: the files of the service one request enters, in the order it first enters them');
  const env = await openBenchEnv({ env: NO_BACKGROUND_WORK });
  const session = new Session();
  session.connect();
  try {
    for (const request of await requests(env)) {
      await request.send(env, 0);
      await request.send(env, 1);
      const ran = await functionsRunDuring(session, () => request.send(env, 2));
      const visits = await filesInOrder(env, session, ran, () => request.send(env, 3));
      const files = new Set(ran.map((fn) => fn.file));
      // A visit is an entry into a function of another file than the last one entered; loops over rows repeat visits.
      console.log(`\n${request.name}: ${files.size} files, ${visits.length} visits`);
      console.log(`  ${[...new Set(visits)].join(' → ')}`);
      if (process.env.BENCH_CODE_PATH_VISITS) console.log(`  every visit: ${visits.join(' → ')}`);
    }
  } finally {
    session.disconnect();
    await env.stop();
  }
}
