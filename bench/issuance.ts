/**
 * Issue 5: issuance throughput. Certificates issued a second (POST /api/v1/certificates with
 * finish: true) by 8 concurrent clients (BENCH_ISSUANCE_CLIENTS) over real HTTP, each with its own student, completed
 * enrollment and uploaded PDF; beside it, in the same process, the document work alone (signPdf,
 * renderTranscript), so the ratio of the two shows what the rest of the pipeline costs.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import pg from 'pg';
import {
  createSigningIdentity,
  inspectSignedPdf,
  prepareSigner,
  renderTranscript,
  sealPlacement,
  signPdf,
  type PreparedSigner,
  type TranscriptData,
} from '../src/documents/index.js';
import { renderLayout } from '../src/documents/layout-renderer.js';
import { readLayout } from '../src/templates/template-layout.js';
import { cpuSample, perRequest } from './cpu.js';
import { profiled, shouldProfile } from './profile.js';
import type { BenchEnv, Row } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 1);
// Issue 14 states its target at 8 clients.
const CLIENTS = Number(process.env.BENCH_ISSUANCE_CLIENTS || 8);
const TARGET_PER_SECOND = 20;
// Enough student/file pairs for 60 issuances/s through warm-up and measurement, within reason.
const PAIRS = Math.min(1500, Math.ceil(60 * (SECONDS + WARMUP_SECONDS) * 1.5));
const UPLOAD_BATCH = 20; // UPLOAD_MAX_FILES' default
const INSTITUTION = { name: 'Bench Institute of Technology', country: 'BR' };
const COURSE = { name: 'Data Engineering', code: 'DE-1' };
const MODULES = Array.from({ length: 10 }, (_, i) => ({
  name: `Module ${i + 1}: ${['Databases', 'Streams', 'Statistics', 'Pipelines', 'Cloud'][i % 5]}`,
  code: `DE${101 + i}`,
  workload: 30 + 5 * i,
  credits: 2 + (i % 3),
}));

type Json = Record<string, any>;

const example = (name: string) => readFileSync(new URL(`../../examples/templates/${name}`, import.meta.url));
/** The formal diploma of docs/templates.md: what a rendered issuance draws, with the two images its uuids stand for. */
const FORMAL_DIPLOMA = JSON.parse(example('formal-diploma.json').toString('utf8')) as Json;
const DIPLOMA_IMAGES: Record<string, string> = { '5b0f4c1e-0c1a-4d7e-9a3b-6f2d8e4c1a01': 'crest.png', '5b0f4c1e-0c1a-4d7e-9a3b-6f2d8e4c1a02': 'signature.png' };

/** The formal diploma naming this tenant's uploads of its images. */
async function uploadedDiploma(env: IssuanceTarget): Promise<Json> {
  const form = new FormData();
  for (const name of Object.values(DIPLOMA_IMAGES)) form.append('files[]', new Blob([new Uint8Array(example(name))], { type: 'image/png' }), name);
  const uploaded = (await post(env, '/files', form)) as { uuid: string }[];
  let json = JSON.stringify(FORMAL_DIPLOMA);
  Object.keys(DIPLOMA_IMAGES).forEach((placeholder, i) => (json = json.replaceAll(placeholder, uploaded[i]!.uuid)));
  return JSON.parse(json) as Json;
}
/** A measured case; `rps` is operations a second, `ops` how many completed. */
type Measured = Row & { ops: number };

/** Where a service answers and the headers of an authenticated call: the in-process one or a separate process. */
export type IssuanceTarget = Pick<BenchEnv, 'url' | 'auth'>;

async function post(env: IssuanceTarget, path: string, body: Json | FormData): Promise<any> {
  const json = !(body instanceof FormData);
  const headers = json ? { ...env.auth, 'content-type': 'application/json' } : env.auth;
  const response = await fetch(`${env.url}/api/v1${path}`, { method: 'POST', headers, body: json ? JSON.stringify(body) : body });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text).data;
}

/** `work(0 … count-1)`, `concurrency` at a time, results in index order. */
async function inParallel<T>(count: number, concurrency: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await work(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/** A one-page A4 landscape diploma (~4 KB): frame, ornament, text, module list; `serial` makes it unique. */
async function diploma(studentName: string, serial: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.setTitle(`Certificate ${serial}`);
  const page = document.addPage([842, 595]);
  const [regular, bold, italic] = await Promise.all(
    [StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.TimesRomanItalic].map((font) => document.embedFont(font)),
  );
  const [navy, gold] = [rgb(0.1, 0.2, 0.45), rgb(0.6, 0.5, 0.2)];
  page.drawRectangle({ x: 24, y: 24, width: 794, height: 547, borderWidth: 3, borderColor: navy });
  page.drawRectangle({ x: 34, y: 34, width: 774, height: 527, borderWidth: 1, borderColor: gold });
  for (let k = 0; k < 24; k++)
    page.drawEllipse({ x: 700, y: 440, xScale: 80 - 2 * k, yScale: 30 + 2 * k, borderWidth: 0.4, borderColor: gold, borderOpacity: 0.6 });
  page.drawText(INSTITUTION.name, { x: 60, y: 500, size: 20, font: bold, color: navy });
  page.drawText('Certificate of Completion', { x: 60, y: 440, size: 36, font: bold });
  page.drawText('This certifies that', { x: 60, y: 390, size: 16, font: italic });
  page.drawText(studentName, { x: 60, y: 350, size: 28, font: bold });
  const body = `has completed the programme ${COURSE.name} (${COURSE.code}), 360 hours in ten modules, with a final grade of 8.75, on 30 June 2026.`;
  page.drawText(body, { x: 60, y: 300, size: 13, font: regular, maxWidth: 400, lineHeight: 18 });
  MODULES.forEach((module, i) =>
    page.drawText(`${module.code}  ${module.name} ........ ${module.workload} h`, { x: 480, y: 300 - 12 * i, size: 8, font: regular }),
  );
  for (let i = 0; i < 5; i++)
    page.drawText(`Clause ${i + 1}: the holder is entitled to the rights the statutes of the institution grant to its graduates.`, {
      x: 60,
      y: 180 - 12 * i,
      size: 8,
      font: regular,
    });
  page.drawLine({ start: { x: 520, y: 100 }, end: { x: 760, y: 100 }, thickness: 1 });
  page.drawText('Registrar', { x: 610, y: 85, size: 11, font: italic });
  page.drawText(`Serial ${serial}`, { x: 60, y: 50, size: 8, font: regular });
  return document.save();
}

async function upload(env: IssuanceTarget, pdfs: Uint8Array[]): Promise<string[]> {
  const form = new FormData();
  pdfs.forEach((pdf, i) => form.append('files[]', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), `diploma-${i + 1}.pdf`));
  for (let attempt = 1; ; attempt++) {
    try {
      return ((await post(env, '/files', form)) as { uuid: string }[]).map((file) => file.uuid);
    } catch (error) {
      // On a loaded machine an upload may wait past UPLOAD_QUEUE_WAIT_MS and be refused mid-body (a reset): seeding tries again.
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}

/** One institution and course with 10 modules in 2 groups; `count` request bodies, each its own student, enrollment and PDF. */
export async function seedIssuances(
  env: IssuanceTarget,
  count: number,
  institutionFields: Json = INSTITUTION,
  emailPrefix = 'graduate',
  /** `template`: no uploads; every body names a template whose layout draws the certificate (docs/templates.md). */
  source: 'upload' | 'template' = 'upload',
): Promise<{ bodies: string[]; pdfBytes: number }> {
  const institution = await post(env, '/institutions', institutionFields);
  let templateUuid: string | undefined;
  if (source === 'template') {
    const template = await post(env, '/certificate-templates', {
      institution_uuid: institution.uuid,
      name: 'Formal diploma',
      version: '1',
      path: 'formal-diploma',
      design_config: await uploadedDiploma(env),
    });
    templateUuid = template.uuid;
  }
  const course = await post(env, '/courses', { institution_uuid: institution.uuid, ...COURSE, workload: 360 });
  const groups = [
    await post(env, `/courses/${course.uuid}/modules/groups`, { name: 'Foundations', order: 1 }),
    await post(env, `/courses/${course.uuid}/modules/groups`, { name: 'Specialisation', order: 2 }),
  ];
  const modules = await inParallel(MODULES.length, 4, (i) => post(env, '/modules', { institution_uuid: institution.uuid, ...MODULES[i] }));
  const attachments = modules.map((module, i) => ({ module_uuid: module.uuid, course_module_group_uuid: groups[i % 2].uuid, order: i + 1 }));
  await post(env, `/courses/${course.uuid}/attach/modules`, { modules: attachments });
  const people = await inParallel(count, 8, async (i) => {
    const student = await post(env, '/students', { name: `Graduate Number ${i + 1}`, email: `${emailPrefix}${i + 1}@bench.test`, date_of_birth: '2001-02-03' });
    const completed = { completion_status: 'completed', grade: 8.75, enrolled_at: '2025-03-01', completed_at: '2026-06-30' };
    const enrollment = await post(env, '/enrollments', { student_uuid: student.uuid, course_uuid: course.uuid, ...completed });
    return { student: student.uuid as string, enrollment: enrollment.uuid as string, name: student.name as string };
  });
  if (source === 'template') {
    const bodies = people.map(({ student, enrollment }) =>
      JSON.stringify({
        institution_uuid: institution.uuid,
        course_uuid: course.uuid,
        student_uuid: student,
        enrollment_uuid: enrollment,
        template_uuid: templateUuid,
        finish: true,
      }),
    );
    return { bodies, pdfBytes: 0 };
  }
  let pdfBytes = 0;
  const batches = await inParallel(Math.ceil(count / UPLOAD_BATCH), 4, async (batch) => {
    const names = people.slice(batch * UPLOAD_BATCH, (batch + 1) * UPLOAD_BATCH).map((person) => person.name);
    const pdfs = await Promise.all(names.map((name) => diploma(name, randomUUID())));
    pdfBytes += pdfs.reduce((sum, pdf) => sum + pdf.length, 0);
    return upload(env, pdfs);
  });
  const files = batches.flat();
  if (new Set(files).size !== count) throw new Error(`uploaded ${count} PDFs but got ${new Set(files).size} distinct files`);
  const bodies = people.map(({ student, enrollment }, i) =>
    JSON.stringify({
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student,
      enrollment_uuid: enrollment,
      file_uuid: files[i],
      finish: true,
    }),
  );
  return { bodies, pdfBytes: pdfBytes / count };
}

// Plain JavaScript on a worker thread: on the server's event loop the clients would steal the CPU being measured.
const LOAD_GENERATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, headers, bodies, clients, seconds } = workerData;
(async () => {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const latencies = [], statuses = [];
  let next = 0, sample;
  const client = async () => {
    while (performance.now() < deadline && next < bodies.length) {
      const body = bodies[next++];
      const sent = performance.now();
      try {
        const response = await fetch(url, { method: 'POST', headers, body });
        const text = await response.text();
        if (response.status !== 201) sample ??= response.status + ' ' + text.slice(0, 300);
        statuses.push(response.status);
      } catch (error) {
        sample ??= String(error);
        statuses.push(0);
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  parentPort.postMessage({ latencies, statuses, used: next, seconds: (performance.now() - started) / 1000, sample });
})();`;

export interface LoadResult {
  latencies: number[];
  statuses: number[];
  used: number;
  seconds: number;
  sample?: string;
}

/** CLIENTS closed-loop clients, each taking the next unused body, until `seconds` pass (requests in flight finish). */
export function fireIssuances(env: IssuanceTarget, bodies: string[], seconds: number): Promise<LoadResult> {
  const workerData = { url: `${env.url}/api/v1/certificates`, headers: { ...env.auth, 'content-type': 'application/json' }, bodies, clients: CLIENTS, seconds };
  const worker = new Worker(LOAD_GENERATOR, { eval: true, workerData });
  return new Promise<LoadResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`load generator exited with ${code} before reporting`)));
  }).finally(() => void worker.terminate());
}

export const percentile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;

function summarize(
  name: string,
  latencies: number[],
  seconds: number,
  ok: number,
  cpu: Pick<Row, 'serverUs' | 'postgresUs'>,
  failures = { non2xx: 0, errors: 0 },
): Measured {
  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, ms) => sum + ms, 0) / (sorted.length || 1);
  return { name, rps: ok / seconds, ops: ok, mean, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), ...failures, ...cpu };
}

/** Warm-up, then the measured run on the pairs left; only 201s count as issuances. */
export async function measureIssuance(env: BenchEnv, bodies: string[], name = `(a) POST /certificates finish: true, ${CLIENTS} clients`): Promise<Measured> {
  const warmup = WARMUP_SECONDS > 0 ? await fireIssuances(env, bodies, WARMUP_SECONDS) : { used: 0, statuses: [] as number[], sample: undefined };
  if (warmup.statuses.some((status) => status !== 201)) console.warn(`WARNING: warm-up had non-201 responses, e.g. ${warmup.sample}`);
  const left = bodies.slice(warmup.used);
  const run = () => fireIssuances(env, left, SECONDS);
  const before = await cpuSample(env.postgresPid);
  const result = shouldProfile(name) ? await profiled(name, run) : await run();
  const ok = result.statuses.filter((status) => status === 201).length;
  const cpu = perRequest(before, await cpuSample(env.postgresPid), result.statuses.length);
  if (result.used === left.length)
    console.warn(`WARNING: all ${left.length} prepared pairs were used before ${SECONDS} s; the rate is still per elapsed second`);
  if (result.sample) console.warn(`WARNING: first failure: ${result.sample}`);
  const failures = {
    non2xx: result.statuses.filter((status) => status !== 201 && status !== 0).length,
    errors: result.statuses.filter((status) => status === 0).length,
  };
  return summarize(name, result.latencies, result.seconds, ok, cpu, failures);
}

function transcriptData(uuid: string, verificationUrl: string): TranscriptData {
  return {
    institutionName: INSTITUTION.name,
    student: { name: 'Graduate Number 1', dateOfBirth: '2001-02-03' },
    course: COURSE,
    moduleGroups: [
      { uuid: 'g1', name: 'Foundations', order: 1 },
      { uuid: 'g2', name: 'Specialisation', order: 2 },
    ],
    modules: MODULES.map((module, i) => ({ ...module, order: i + 1, groupUuid: i % 2 === 0 ? 'g1' : 'g2' })),
    enrollment: { grade: '8.75', completedAt: new Date('2026-06-30') },
    certificate: { uuid, verificationUrl, issuedAt: new Date() },
  };
}

/** The document work of issuance as issuance.ts does it: sign the upload; render and sign the transcript. */
function documentWork(signer: PreparedSigner, diplomas: Uint8Array[]) {
  let next = 0;
  const reference = () => {
    const credentialUuid = randomUUID();
    return {
      credentialUuid,
      verificationUrl: `https://verify.bench.test/verify/${credentialUuid}`,
      signerName: INSTITUTION.name,
      location: INSTITUTION.country,
    };
  };
  const signDiploma = () =>
    signPdf(diplomas[next++ % diplomas.length]!, signer, { ...reference(), reason: `Certificate: ${COURSE.name}`, seal: sealPlacement(null) });
  const transcript = async () => {
    const details = reference();
    const pdf = await renderTranscript(transcriptData(details.credentialUuid, details.verificationUrl));
    return signPdf(pdf, signer, { ...details, reason: `Academic transcript: ${COURSE.name}` });
  };
  return { signDiploma, transcript, issuance: async () => [await signDiploma(), await transcript()] };
}

/** `concurrency` loops of `work` on this thread (idle server) for SECONDS; CPU is this thread's. */
async function loop(name: string, concurrency: number, work: () => Promise<unknown>): Promise<Measured> {
  const run = async () => {
    const latencies: number[] = [];
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        await work();
        latencies.push(performance.now() - begun);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { latencies, seconds: (performance.now() - started) / 1000 };
  };
  const before = await cpuSample(undefined);
  const { latencies, seconds } = shouldProfile(name) ? await profiled(name, run) : await run();
  return summarize(name, latencies, seconds, latencies.length, perRequest(before, await cpuSample(undefined), latencies.length));
}

async function measureDocuments(): Promise<Measured[]> {
  const identity = createSigningIdentity({ institutionName: INSTITUTION.name, country: INSTITUTION.country });
  const signer = prepareSigner(identity);
  const diplomas = await Promise.all(Array.from({ length: 20 }, (_, i) => diploma(`Graduate Number ${i + 1}`, randomUUID())));
  const work = documentWork(signer, diplomas);
  for (const pdf of await work.issuance()) {
    const inspection = await inspectSignedPdf(pdf);
    if (!inspection.intact || !inspection.coversWholeFile) throw new Error(`the document work produced a bad signature: ${JSON.stringify(inspection)}`);
  }
  const warmUntil = performance.now() + WARMUP_SECONDS * 1000;
  while (performance.now() < warmUntil) await work.issuance();
  return [
    await loop('(b) signPdf diploma, 1 loop', 1, work.signDiploma),
    await loop(`(b) signPdf diploma, ${CLIENTS} loops`, CLIENTS, work.signDiploma),
    await loop('(c) renderTranscript (10 modules) + signPdf, 1 loop', 1, work.transcript),
    await loop(`(d) document work of an issuance (b + c), ${CLIENTS} loops`, CLIENTS, work.issuance),
  ];
}

/** POST one issuance outside the measurement; throws unless it answers 201 with both signed files. */
export async function issueOne(env: IssuanceTarget, body: string): Promise<void> {
  const certificate = await post(env, '/certificates', JSON.parse(body));
  const types = (certificate.files as { type: string }[]).map((file) => file.type);
  if (certificate.status !== 'issued' || !types.includes('certificate') || !types.includes('transcript')) {
    throw new Error(`issuance answered status ${certificate.status} with files ${types.join(', ')}`);
  }
}

/**
 * Every statement the pg driver sends while `work` runs: the ORM's (what onQuery reports) plus what it
 * does not report, transaction control and the file chunks the storage sends to the driver directly.
 */
async function driverStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const statements: string[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [config] = args as [string | { text?: string }];
    statements.push(typeof config === 'string' ? config : (config?.text ?? '?'));
    return original.apply(this, args);
  };
  try {
    return { result: await work(), statements };
  } finally {
    prototype.query = original;
  }
}

function countByKind(statements: string[]): string {
  const kinds = new Map<string, number>();
  for (const sql of statements) {
    const kind = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '?';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
}

const ms = (us: number | undefined) => (us === undefined ? '-' : Number((us / 1000).toFixed(1)));
const round = (value: number, digits: number) => Number(value.toFixed(digits));

function print(rows: Measured[], statements: { orm: string[]; driver: string[] }): void {
  console.log('\nissuance: certificates issued over HTTP vs the document work alone (latency from the client, sub-ms resolution)');
  console.table(
    rows.map((row) => ({
      case: row.name,
      'ops/s': round(row.rps, 1),
      ops: row.ops,
      'mean ms': round(row.mean, 1),
      'p50 ms': round(row.p50, 1),
      'p99 ms': round(row.p99, 1),
      'non-201': row.non2xx,
      errors: row.errors,
      'server CPU ms/op': ms(row.serverUs),
      'PG CPU ms/op': ms(row.postgresUs),
    })),
  );
  const [pipeline, sign1, sign4, transcript1, documents4] = rows as [Measured, Measured, Measured, Measured, Measured];
  const perIssuance = sign1.mean + transcript1.mean;
  console.log(
    `signatures/s (diploma): ${sign1.rps.toFixed(1)} on 1 loop, ${sign4.rps.toFixed(1)} on ${CLIENTS} loops (one thread: the server signs on its main thread too)`,
  );
  console.log(
    `document work per issuance-equivalent (2 signatures + 1 transcript render): ${perIssuance.toFixed(1)} ms on 1 loop (${(1000 / perIssuance).toFixed(1)}/s); measured at ${CLIENTS} loops: ${documents4.rps.toFixed(1)}/s`,
  );
  const overhead = pipeline.serverUs - documents4.serverUs;
  console.log(
    `CPU per issuance: server thread ${ms(pipeline.serverUs)} ms (document work ${ms(documents4.serverUs)} ms = ${((100 * documents4.serverUs) / pipeline.serverUs).toFixed(0)}%, the rest ${ms(overhead)} ms), PostgreSQL ${ms(pipeline.postgresUs)} ms`,
  );
  console.log(`SQL statements per issuance request (authentication included): ${statements.orm.length} through the ORM (${countByKind(statements.orm)})`);
  console.log(`  ${statements.driver.length} sent by the pg driver (${countByKind(statements.driver)}): transaction control and file chunks bypass onQuery`);
  if (process.env.BENCH_SQL) console.log(statements.driver.join('\n'));
  const ratio = pipeline.rps / documents4.rps;
  const verdict = pipeline.rps >= TARGET_PER_SECOND ? 'met' : 'MISSED';
  console.log(
    `issuance: ${pipeline.rps.toFixed(1)} issuances/s at ${CLIENTS} clients, p99 ${pipeline.p99.toFixed(0)} ms; ${(100 * ratio).toFixed(0)}% of the document work's ${documents4.rps.toFixed(1)}/s (target >= ${TARGET_PER_SECOND}/s: ${verdict})`,
  );
}

export async function runIssuanceBench(env: BenchEnv): Promise<Row[]> {
  const started = performance.now();
  const { bodies, pdfBytes } = await seedIssuances(env, PAIRS + 2);
  console.log(
    `\nseeded ${bodies.length} students with completed enrollments and ${bodies.length} uploaded PDFs (${(pdfBytes / 1024).toFixed(1)} KB each) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await issueOne(env, bodies[0]!); // generates the institution's signing key
  const { result: orm, statements: driver } = await driverStatements(() => env.withStatements(() => issueOne(env, bodies[1]!)));
  const pipeline = await measureIssuance(env, bodies.slice(2));
  const rows = [pipeline, ...(await measureDocuments())];
  print(rows, { orm: orm.statements, driver });
  const rendered = await measureRendered(env);
  printRendered(pipeline, rendered);
  return [...rows, ...rendered];
}

/**
 * Issue 33's targets: the same issuances with no upload, drawn from the formal diploma template
 * (a'), and drawing the layout alone on this thread (e), whose CPU per drawing is what rendering adds.
 */
async function measureRendered(env: BenchEnv): Promise<Measured[]> {
  const { bodies } = await seedIssuances(env, PAIRS + 1, { ...INSTITUTION, name: `${INSTITUTION.name} (templates)` }, 'drawn', 'template');
  await issueOne(env, bodies[0]!);
  const drawnIssuance = await measureIssuance(env, bodies.slice(1), `(a') POST /certificates finish: true, no file, drawn from a template, ${CLIENTS} clients`);
  const { layout } = readLayout(FORMAL_DIPLOMA);
  const names = Array.from({ length: 50 }, (_, i) => `Graduate Number ${i + 1}`);
  const images = Object.fromEntries(
    Object.entries(DIPLOMA_IMAGES).map(([uuid, name]) => [
      uuid,
      { mimeType: 'image/png' as const, bytes: new Uint8Array(example(name)), cacheKey: `bench/${uuid}` },
    ]),
  );
  let next = 0;
  const draw = () => {
    const student = names[next++ % names.length]!;
    const elements = layout!.elements.map((element) =>
      element.type === 'text' ? { ...element, text: element.text.replace(/\{\{[^}]+\}\}/g, student) } : element,
    );
    return renderLayout({ layout: { ...layout!, elements }, files: images, verificationUrl: `https://verify.bench.test/verify/${randomUUID()}` });
  };
  const warmUntil = performance.now() + WARMUP_SECONDS * 1000;
  while (performance.now() < warmUntil) await draw();
  return [drawnIssuance, await loop('(e) renderLayout (formal diploma), 1 loop', 1, draw)];
}

function printRendered(uploaded: Measured, [drawn, layout]: Measured[]): void {
  console.table(
    [drawn!, layout!].map((row) => ({
      case: row.name,
      'ops/s': round(row.rps, 1),
      'p50 ms': round(row.p50, 1),
      'p99 ms': round(row.p99, 1),
      'non-201': row.non2xx,
      'server CPU ms/op': ms(row.serverUs),
    })),
  );
  const ratio = drawn!.rps / uploaded.rps;
  console.log(
    `rendering: drawing the layout takes ${ms(layout!.serverUs)} ms CPU a page (target <= 30 ms: ${layout!.serverUs <= 30_000 ? 'met' : 'MISSED'}; p50 ${layout!.p50.toFixed(1)} ms wall on one loop); server CPU per issuance ${ms(uploaded.serverUs)} ms uploaded vs ${ms(drawn!.serverUs)} ms drawn`,
  );
  console.log(
    `rendered issuances: ${drawn!.rps.toFixed(1)}/s vs ${uploaded.rps.toFixed(1)}/s uploaded = ${(100 * ratio).toFixed(0)}% (target >= 80%: ${ratio >= 0.8 ? 'met' : 'MISSED'})`,
  );
}
