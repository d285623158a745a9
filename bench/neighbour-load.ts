/**
 * The load generator of the neighbour scenarios (bench/neighbours.ts), in a process of its own so its
 * work never runs on the server's event loop. Reads a plan from NEIGHBOUR_PLAN: streams of requests,
 * each paced (one every `everyMs`, open loop: a slow answer does not slow the sender) or closed-loop
 * (`concurrency` requests always in flight), each optionally from its own loopback address (the service
 * limits public endpoints per address). Prints one JSON report: latencies and answers per stream.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A JSON or text body, or the path of a file whose bytes are the body. */
  body?: string;
  bodyFile?: string;
  /** Sent as a multipart upload of a fresh small PDF (`files[]`): every upload is new content. */
  freshPdf?: boolean;
}

export interface Stream {
  name: string;
  role: 'victim' | 'attacker';
  /**
   * Source address of the stream's connections (127.0.0.x), so each stream is its own public client; with
   * several, the requests take them in turn (more samples of one kind of client at its own per-address rate).
   */
  localAddress?: string | string[];
  everyMs?: number;
  concurrency?: number;
  /** Cycled through in order; with `once`, each is sent at most once. */
  requests: RequestSpec[];
  once?: boolean;
}

export interface Plan {
  url: string;
  seconds: number;
  streams: Stream[];
}

export interface StreamReport {
  name: string;
  role: Stream['role'];
  latencies: number[];
  statuses: Record<string, number>;
  /** For fresh uploads: the uuid of each stored file and when its request was sent (epoch ms). */
  uploads: { uuid: string; sentAt: number }[];
}

const plan = JSON.parse(process.env.NEIGHBOUR_PLAN!) as Plan;
/** BENCH_NEIGHBOUR_TRACE=<file>: one line per request (role, stream, sent at, ms, status, path), to line up slow victims with the attack. */
const TRACE = process.env.BENCH_NEIGHBOUR_TRACE;
const target = new URL(plan.url);
const files = new Map<string, Buffer>();
const bodyOf = (spec: RequestSpec): Buffer | undefined => {
  if (spec.bodyFile) {
    if (!files.has(spec.bodyFile)) files.set(spec.bodyFile, readFileSync(spec.bodyFile));
    return files.get(spec.bodyFile);
  }
  return spec.body === undefined ? undefined : Buffer.from(spec.body);
};

/** A minimal valid one-page PDF whose text makes its bytes unique. */
function freshPdf(): { body: Buffer; type: string } {
  const text = `(${Date.now()}-${Math.random().toString(36).slice(2)})`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
  ];
  const stream = `BT /F1 12 Tf 20 100 Td ${text} Tj ET`;
  objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const boundary = `neighbour${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="note.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
    Buffer.from(pdf, 'latin1'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

function send(stream: Stream, spec: RequestSpec, turn: number): Promise<{ status: number; text: string }> {
  const localAddress = Array.isArray(stream.localAddress) ? stream.localAddress[turn % stream.localAddress.length] : stream.localAddress;
  const upload = spec.freshPdf ? freshPdf() : undefined;
  const body = upload?.body ?? bodyOf(spec);
  const headers: Record<string, string | number> = { ...spec.headers };
  if (upload) headers['content-type'] = upload.type;
  if (body) headers['content-length'] = body.length;
  return new Promise((resolve) => {
    const request = http.request(
      { host: target.hostname, port: target.port, method: spec.method, path: spec.path, headers, localAddress, timeout: 120_000 },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          // Only the start of an answer is kept: the big ones are the attack, not something to hold.
          if (size < 4096) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        response.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve({ status: 0, text: '' }));
    request.end(body);
  });
}

async function run(stream: Stream, deadline: number): Promise<StreamReport> {
  const report: StreamReport = { name: stream.name, role: stream.role, latencies: [], statuses: {}, uploads: [] };
  let next = 0;
  let turns = 0;
  const take = (): RequestSpec | undefined => {
    if (stream.once && next >= stream.requests.length) return undefined;
    return stream.requests[next++ % stream.requests.length];
  };
  const one = async (spec: RequestSpec) => {
    const sentAt = Date.now();
    const started = performance.now();
    const { status, text } = await send(stream, spec, turns++);
    report.latencies.push(performance.now() - started);
    if (TRACE)
      appendFileSync(TRACE, `${stream.role}\t${stream.name}\t${sentAt}\t${(performance.now() - started).toFixed(1)}\t${status}\t${spec.path.slice(0, 60)}\n`);
    report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    if (spec.freshPdf && status === 201) {
      const uuid = /"uuid":"([^"]+)"/.exec(text)?.[1];
      if (uuid) report.uploads.push({ uuid, sentAt });
    }
  };
  if (stream.everyMs) {
    const inFlight: Promise<void>[] = [];
    for (let due = performance.now(); due < deadline; due += stream.everyMs) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      const spec = take();
      if (!spec) break;
      inFlight.push(one(spec));
    }
    await Promise.all(inFlight);
  } else {
    const loop = async () => {
      for (let spec = take(); spec && performance.now() < deadline; spec = take()) await one(spec);
    };
    await Promise.all(Array.from({ length: stream.concurrency ?? 1 }, loop));
  }
  return report;
}

const deadline = performance.now() + plan.seconds * 1000;
const reports = await Promise.all(plan.streams.map((stream) => run(stream, deadline)));
process.stdout.write(JSON.stringify(reports));
