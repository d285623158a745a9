/**
 * The load generator of `npm run bench -- hostile`, in its own process (never in the server's event
 * loop): closed-loop workers where every tenth request is hostile; or, with HOSTILE_MODE=probe, only a
 * /healthz probe every 100 ms (its own process, so the load's own event loop cannot delay its timings).
 * Reads its target from the environment and prints one JSON report on stdout.
 */
import net from 'node:net';
import { CYCLIC_QUERY, cpuBombPdf, deepJson, hugeXrefPdf, manyObjectsPdf, UNSTORABLE_TEXT } from '../test/support/hostile-payloads.js';

const url = process.env.HOSTILE_URL!;
const seconds = Number(process.env.HOSTILE_SECONDS || 60);
const workers = Number(process.env.HOSTILE_CONNECTIONS || 10);
const auth = JSON.parse(process.env.HOSTILE_AUTH!) as Record<string, string>;
const clientId = process.env.HOSTILE_CLIENT_ID!;
const certificateUuid = process.env.HOSTILE_CERTIFICATE_UUID!;
/** `verify`: every request is a hostile verification (the "/healthz while 10 hostile verifications run"). */
const mode = (['verify', 'probe'] as const).find((name) => name === process.env.HOSTILE_MODE) ?? 'mixed';

type Call = () => Promise<number>;

async function call(path: string, init: RequestInit = {}): Promise<number> {
  try {
    const response = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(60_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

const JSON_HEADERS = { ...auth, 'content-type': 'application/json' };

const NORMAL: [string, Call][] = [
  ['REST enrollments page', () => call('/api/v1/enrollments?per_page=20&includes[student]=1&includes[course]=1', { headers: auth })],
  [
    'GraphQL students page',
    () =>
      call('/graphql', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ query: '{ students(first: 20) { totalCount nodes { uuid name email } } }' }),
      }),
  ],
  [
    'REST create student',
    () =>
      call('/api/v1/students', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ name: 'Soak Student', email: `soak${Math.random().toString(36).slice(2)}@example.org`, date_of_birth: '2001-01-01' }),
      }),
  ],
  ['public verification page', () => call(`/verify/${certificateUuid}`)],
];

/** Payloads are built once: building a CPU bomb costs the generator, not the server. */
const cpuBomb = cpuBombPdf(1000);
const xrefBomb = hugeXrefPdf();
const objectBomb = manyObjectsPdf();

/** Sends the start of a GraphQL multipart upload and then nothing, until the server gives up on it. */
function trickle(): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const boundary = 'soak';
    const head = `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nX-Tenant: ${auth['x-tenant']}\r\napollo-require-preflight: true\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n`;
    const operations = `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":"mutation($f:[Upload!]!){uploadFiles(files:$f){uuid}}","variables":{"f":[null]}}\r\n--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.f.0"]}\r\n--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="a.pdf"\r\n\r\n%PDF-1.7\n${'x'.repeat(2000)}`;
    socket.on('connect', () => socket.write(head + operations));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.setTimeout(60_000, () => socket.destroy());
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

const HOSTILE: [string, Call][] = [
  [
    'verify: 1,000 slow-key certificates',
    () => call('/api/v1/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(cpuBomb) }),
  ],
  ['verify: xref /Size 2e9', () => call('/api/v1/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(xrefBomb) })],
  ['verify: 600k objects', () => call('/api/v1/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(objectBomb) })],
  ['GraphQL relation cycle', () => call('/graphql', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ query: CYCLIC_QUERY }) })],
  [
    'GraphQL alias bomb',
    () =>
      call('/graphql', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ query: `{ ${Array.from({ length: 2000 }, (_, i) => `a${i}: students(first: 100) { totalCount }`).join(' ')} }` }),
      }),
  ],
  ['JSON 20k levels deep', () => call('/api/v1/students', { method: 'POST', headers: JSON_HEADERS, body: deepJson() })],
  [
    'NUL and lone surrogates',
    () =>
      call('/api/v1/students', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ name: UNSTORABLE_TEXT[0], email: 'nul@example.org', date_of_birth: '2001-01-01', social_name: UNSTORABLE_TEXT[1] }),
      }),
  ],
  [
    'token: wrong secret',
    () =>
      call('/api/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong-${Math.random()}`,
      }),
  ],
  [
    'GET introspection without a token',
    () => call('/graphql?query=%7B__schema%7Btypes%7Bname%7D%7D%7D', { headers: { accept: 'text/html, application/json' } }),
  ],
  ['slow GraphQL upload (started; its end is counted below)', startTrickle],
];

const VERIFY_BOMBS = HOSTILE.filter(([name]) => name.startsWith('verify:'));

/** Trickling sockets must not hold a worker of the generator: each runs on its own until the server cuts it. */
async function startTrickle(): Promise<number> {
  void trickle().then((status) => record('hostile|slow GraphQL upload, answer when cut', status, 0));
  return 1;
}

interface Tally {
  latencies: number[];
  statuses: Record<number, number>;
}

const tallies = new Map<string, Tally>();
function record(name: string, status: number, ms: number): void {
  let tally = tallies.get(name);
  if (!tally) tallies.set(name, (tally = { latencies: [], statuses: {} }));
  tally.latencies.push(ms);
  tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
};

async function main(): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  let sequence = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const n = sequence++;
      const hostile = mode === 'verify' || n % 10 === 9;
      const [name, run] =
        mode === 'verify' ? VERIFY_BOMBS[n % VERIFY_BOMBS.length]! : hostile ? HOSTILE[Math.floor(n / 10) % HOSTILE.length]! : NORMAL[n % NORMAL.length]!;
      const started = performance.now();
      const status = await run();
      record(`${hostile ? 'hostile' : 'normal'}|${name}`, status, performance.now() - started);
    }
  };
  const probe = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const status = await call('/healthz');
      record('probe|/healthz', status, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await (mode === 'probe' ? probe() : Promise.all(Array.from({ length: workers }, worker)));
  const rows = [...tallies].map(([key, tally]) => {
    const [kind, name] = key.split('|');
    return {
      kind,
      name,
      requests: tally.latencies.length,
      p50: percentile(tally.latencies, 50),
      p99: percentile(tally.latencies, 99),
      max: Math.max(...tally.latencies),
      statuses: tally.statuses,
    };
  });
  const normal = [...tallies].filter(([key]) => key.startsWith('normal|')).flatMap(([, tally]) => tally.latencies);
  process.stdout.write(JSON.stringify({ rows, normal: { requests: normal.length, p50: percentile(normal, 50), p99: percentile(normal, 99) } }));
}

await main();
