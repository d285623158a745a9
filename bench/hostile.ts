/**
 * `npm run bench -- hostile`: a soak of mixed traffic where every tenth request is hostile (PDF CPU and
 * memory bombs, relation cycles, alias bombs, deep JSON, unstorable text, wrong secrets, slow uploads).
 * The load runs in a child process; this process hosts the service, so its RSS is the server's.
 * Reports p50/p99 of the normal requests and of /healthz, the answers to each hostile kind, and RSS.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { seedCatalogue } from './seed.js';
import { postCreated as post, type BenchEnv } from './support.js';

const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS || 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const VERIFY_ONLY_SECONDS = 20;

interface LoadReport {
  rows: { kind: string; name: string; requests: number; p50: number; p99: number; max: number; statuses: Record<string, number> }[];
  normal: { requests: number; p50: number; p99: number };
}

/** One issued certificate, so the public page of the normal traffic has something to show. */
async function issueOne(env: BenchEnv): Promise<string> {
  const institution = await post(env, '/institutions', { name: 'Soak University', country: 'BR' });
  const course = await post(env, '/courses', { name: 'Soak course', institution_uuid: institution.uuid });
  const student = await post(env, '/students', { name: 'Soak Graduate', email: 'graduate@soak.test', date_of_birth: '2000-01-01' });
  const enrollment = await post(env, '/enrollments', {
    student_uuid: student.uuid,
    course_uuid: course.uuid,
    enrolled_at: '2025-01-01',
    completion_status: 'completed',
    completed_at: '2026-01-01',
  });
  const document = await PDFDocument.create();
  document.addPage([842, 595]).drawText('Certificate of completion', { x: 60, y: 300, size: 24, font: await document.embedFont(StandardFonts.Helvetica) });
  const form = new FormData();
  form.append('files[]', new Blob([new Uint8Array(await document.save())]), 'diploma.pdf');
  const uploaded = await fetch(`${env.url}/api/v1/files`, { method: 'POST', headers: env.auth, body: form });
  const file = ((await uploaded.json()) as { data: { uuid: string }[] }).data[0]!;
  const certificate = await post(env, '/certificates', {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    enrollment_uuid: enrollment.uuid,
    file_uuid: file.uuid,
    finish: true,
  });
  return certificate.uuid as string;
}

function runChild(env: BenchEnv, certificateUuid: string, mode: 'mixed' | 'verify' | 'probe', seconds: number): Promise<LoadReport> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hostile-load.js');
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      HOSTILE_URL: env.url,
      HOSTILE_SECONDS: String(seconds),
      HOSTILE_MODE: mode,
      HOSTILE_CONNECTIONS: String(CONNECTIONS),
      HOSTILE_AUTH: JSON.stringify(env.auth),
      HOSTILE_CLIENT_ID: env.credentials.clientId,
      HOSTILE_CERTIFICATE_UUID: certificateUuid,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(output) as LoadReport) : reject(new Error(`load generator exited with ${code}`))));
  });
}

/** The load and, in a process of its own, the /healthz probe; one report. */
async function runLoad(env: BenchEnv, certificateUuid: string, mode: 'mixed' | 'verify', seconds: number): Promise<LoadReport> {
  const [load, probe] = await Promise.all([runChild(env, certificateUuid, mode, seconds), runChild(env, certificateUuid, 'probe', seconds)]);
  return { rows: [...load.rows, ...probe.rows], normal: load.normal };
}

const megabytes = (bytes: number) => Math.round(bytes / 2 ** 20);

export async function runHostileBench(env: BenchEnv): Promise<void> {
  await seedCatalogue(env.databaseUrl, env.tenant.uuid);
  const certificateUuid = await issueOne(env);
  const rssAtStart = process.memoryUsage().rss;
  let rssPeak = rssAtStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  let report: LoadReport;
  try {
    report = await runLoad(env, certificateUuid, 'mixed', SECONDS);
  } finally {
    clearInterval(sampler);
  }
  const rssAtEnd = process.memoryUsage().rss;
  console.log(
    `\nhostile soak: ${SECONDS} s, ${CONNECTIONS} closed-loop connections, every 10th request hostile, /healthz probed every 100 ms (load and probe each from a child process)`,
  );
  console.table(
    report.rows
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))
      .map((row) => ({
        kind: row.kind,
        request: row.name,
        count: row.requests,
        'p50 ms': Math.round(row.p50),
        'p99 ms': Math.round(row.p99),
        'max ms': Math.round(row.max),
        answers: Object.entries(row.statuses)
          .map(([status, n]) => `${status}×${n}`)
          .join(' '),
      })),
  );
  console.log(`normal requests: ${report.normal.requests}, p50 ${report.normal.p50.toFixed(1)} ms, p99 ${report.normal.p99.toFixed(1)} ms`);
  console.log(`server RSS: ${megabytes(rssAtStart)} MB at start, ${megabytes(rssPeak)} MB peak, ${megabytes(rssAtEnd)} MB at the end`);
  const verifyOnly = await runLoad(env, certificateUuid, 'verify', VERIFY_ONLY_SECONDS);
  const probe = verifyOnly.rows.find((row) => row.kind === 'probe')!;
  const bombs = verifyOnly.rows.filter((row) => row.kind === 'hostile').reduce((sum, row) => sum + row.requests, 0);
  console.log(
    `${CONNECTIONS} hostile verifications at a time for ${VERIFY_ONLY_SECONDS} s (${bombs} in all): /healthz p50 ${probe.p50.toFixed(1)} ms, p99 ${probe.p99.toFixed(1)} ms, max ${probe.max.toFixed(1)} ms over ${probe.requests} probes; RSS ${megabytes(process.memoryUsage().rss)} MB after`,
  );
  const serverErrors = report.rows.flatMap((row) =>
    Object.entries(row.statuses)
      .filter(([status]) => Number(status) >= 500 || status === '0')
      .map(([status, n]) => `${row.name}: ${status}×${n}`),
  );
  if (serverErrors.length > 0) console.log(`answers ≥ 500 or none at all: ${serverErrors.join('; ')}`);
}

/** The soak, then the neighbour scenarios on a service of their own at the default limits (bench/neighbours.ts). */
export async function runHostileSections(env: BenchEnv): Promise<void> {
  if (process.env.BENCH_HOSTILE_PARTS !== 'neighbours') await runHostileBench(env);
  if (process.env.BENCH_HOSTILE_PARTS !== 'soak') await (await import('./neighbours.js')).runNeighbourBench();
}
