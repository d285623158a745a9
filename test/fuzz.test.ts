/**
 * Seeded fuzzing of every route: four thousand malformed requests (paths, query strings, bodies,
 * content types, headers, raw HTTP), every route and every raw request among them several times → never
 * a 5xx, and the service is healthy afterwards.
 * FUZZ_SEED replays a run; the seed of a failing run is in the failure message.
 */
import net from 'node:net';
import { jest } from '@jest/globals';
import { routes } from '../rest-compat/routes.js';
import { createSchema } from '../src/graphql/schema.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(300_000);

const REQUESTS = 4_000;
/** Each route and each kind of raw request is among the generated requests at least this often. */
const AT_LEAST = 8;
const CONCURRENCY = 8;
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

let service: TestService;
let api: ApiClient;
let realUuids: string[];
/** Valid bodies per collection: one field made hostile reaches deeper than a random object does. */
let validBodies: Record<string, Record<string, unknown>>;
let paths: { method: string; path: string }[];

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off', TOKEN_RATE_LIMIT: '0' });
  api = await signIn(service, 'acme');
  const make = factories(api);
  const course = await make.course();
  const enrollment = await make.enrollment({ course_uuid: course.uuid });
  realUuids = [course.uuid, course.institution.uuid, enrollment.uuid, enrollment.student.uuid];
  const institution_uuid = course.institution.uuid;
  validBodies = {
    institutions: { name: 'Fuzz University', country: 'BR' },
    modules: { name: 'Fuzz module', institution_uuid, code: 'FZ1' },
    courses: { name: 'Fuzz course', institution_uuid },
    groups: { name: 'Fuzz group' },
    cohorts: { code: 'FZ-C', course_uuid: course.uuid },
    students: { name: 'Fuzz Student', email: 'fuzz@example.org', date_of_birth: '2001-02-03' },
    enrollments: { student_uuid: enrollment.student.uuid, course_uuid: course.uuid, enrolled_at: '2025-01-01' },
    'certificate-templates': { name: 'Fuzz template', version: '1', path: '/t.pdf', institution_uuid },
    certificates: { institution_uuid, course_uuid: course.uuid, student_uuid: enrollment.student.uuid, enrollment_uuid: enrollment.uuid },
    files: { original_name: 'fuzz.pdf' },
  };
  const table = routes(await createSchema(), 'http://x').map((route) => ({ method: route.method.toUpperCase(), path: `/api/v1${route.path}` }));
  paths = [
    ...table,
    { method: 'POST', path: '/api/v1/oauth/token' },
    { method: 'POST', path: '/api/v1/verify' },
    { method: 'GET', path: '/api/v1/verify/:uuid' },
    { method: 'GET', path: '/verify/:uuid' },
    { method: 'GET', path: '/api/v1/files/:uuid/download' },
    { method: 'POST', path: '/graphql' },
    { method: 'GET', path: '/graphql' },
  ];
});
afterAll(() => service.stop());

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof generator>;

const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '😀'.repeat(50),
  "' or 1=1 --",
  '"; drop table students; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '%',
  '%%',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '99999999999999999999999999',
  '0x10',
  'true',
  '2024-02-30',
  '9999-12-31T23:59:59Z',
  '\u202e',
  '\r\n\r\n',
  'a'.repeat(5000),
  'ñandú',
  'Nguyễn Thị Ánh Dương',
  '王小明',
  '00000000-0000-0000-0000-000000000000',
  'not-a-uuid',
];
const FIELDS = [
  'name',
  'country',
  'email',
  'code',
  'uuid',
  'uuids',
  'institution_uuid',
  'course_uuid',
  'student_uuid',
  'enrollment_uuid',
  'cohort_uuid',
  'file_uuid',
  'module_uuid',
  'module_uuids',
  'modules',
  'finish',
  'reason',
  'grade',
  'workload',
  'order',
  'date_of_birth',
  'enrolled_at',
  'completed_at',
  'expires_at',
  'design_config',
  'is_default',
  'social_name',
  'original_name',
  '__proto__',
  'constructor',
  'query',
  'variables',
];

/** Strings PostgreSQL or JSON cannot hold as they are: the classic causes of a 500. */
const UNSTORABLE = ['a\u0000b', '\u0000', '\ud800', 'x\udfffy', '\udbff\udfff\ud800'];

function nastyString(random: Random, uuids: string[]): string {
  if (random.chance(0.2)) return random.pick(uuids);
  if (random.chance(0.2)) return random.pick(UNSTORABLE);
  const base = random.pick(NASTY_STRINGS);
  return random.chance(0.2) ? base + String.fromCharCode(random.int(0x10000)) : base;
}

function nastyValue(random: Random, uuids: string[], depth: number): unknown {
  const kind = random.int(depth > 3 ? 6 : 9);
  switch (kind) {
    case 0:
      return nastyString(random, uuids);
    case 1:
      return random.pick([0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, -1e308, 1e308]);
    case 2:
      return random.chance(0.5);
    case 3:
      return null;
    case 4:
      return random.pick(uuids);
    case 5:
      return nastyString(random, uuids);
    case 6:
      return Array.from({ length: random.int(5) }, () => nastyValue(random, uuids, depth + 1));
    default:
      return nastyObject(random, uuids, depth + 1);
  }
}

function nastyObject(random: Random, uuids: string[], depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = random.int(6); i >= 0; i--) object[random.chance(0.9) ? random.pick(FIELDS) : nastyString(random, uuids)] = nastyValue(random, uuids, depth);
  return object;
}

/** Percent-encodes every byte, sometimes with bytes that are not UTF-8 at all (an encoded lone surrogate). */
function encoded(random: Random, text: string): string {
  const bytes = [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  return random.chance(0.05) ? `${bytes}%ED%A0%80%FF` : bytes;
}

function nastyQuery(random: Random, uuids: string[]): string {
  const keys = [
    'where[name]',
    'where[email]',
    'where[status]',
    'where[user][email]',
    'where[course_uuid]',
    'where',
    'sort[column]',
    'sort[order]',
    'sort',
    'includes[files]',
    'includes',
    'page',
    'per_page',
    'after',
    'first',
    'query',
    'variables',
    'a[b][c][d][e][f]',
    'x[]',
  ];
  const parts = Array.from({ length: random.int(4) }, () => `${random.pick(keys)}=${encoded(random, nastyString(random, uuids))}`);
  if (random.chance(0.1)) parts.push('%ZZ=%');
  return parts.length ? `?${parts.join('&')}` : '';
}

function nastyGraphql(random: Random, uuids: string[]): string {
  const documents = [
    '{ __schema { types { name } } }',
    '{ students { nodes { uuid enrollments { nodes { uuid } } } } }',
    'query { institution(uuid: "$") { name } }',
    'mutation { createStudent(input: {}) { uuid } }',
    '{',
    '}}}}',
    'query Q($a: Int) { courses(first: $a) { totalCount } }',
    'subscription { x }',
    `{ certificates(after: ${JSON.stringify(nastyString(random, uuids))}) { totalCount } }`,
    '{ a: viewer { clientId } b: viewer { clientId } }',
  ];
  const body: Record<string, unknown> = {
    query: random.chance(0.8) ? random.pick(documents) : nastyValue(random, uuids, 0),
    variables: random.chance(0.5) ? nastyObject(random, uuids) : nastyValue(random, uuids, 0),
  };
  if (random.chance(0.2)) body.operationName = nastyString(random, uuids);
  return JSON.stringify(body);
}

function validWithOneHostileField(random: Random, path: string, uuids: string[]): Record<string, unknown> {
  const collection = path.includes('/groups') ? 'groups' : (path.split('/')[3] ?? '');
  const body: Record<string, unknown> = { ...(validBodies[collection] ?? validBodies.institutions) };
  const fields = Object.keys(body);
  body[random.chance(0.8) ? random.pick(fields) : random.pick(FIELDS)] = random.chance(0.6) ? nastyString(random, uuids) : nastyValue(random, uuids, 0);
  if ('email' in body && typeof body.email === 'string' && body.email.endsWith('@example.org')) body.email = `fuzz${random.int(1e9)}@example.org`;
  return body;
}

/** How often each route was picked for a request. */
const picked = new Map<{ method: string; path: string }, number>();

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function fuzzRequest(random: Random): FuzzRequest {
  const uuids = [...realUuids, '00000000-0000-0000-0000-000000000000'];
  const route = random.pick(paths);
  picked.set(route, (picked.get(route) ?? 0) + 1);
  const method = random.chance(0.9) ? route.method : random.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
  const path = route.path.replace(/:\w+/g, () => encoded(random, nastyString(random, uuids))) + nastyQuery(random, uuids);
  const headers: Record<string, string> = random.chance(0.85) ? api.headers() : {};
  if (random.chance(0.05)) headers.authorization = random.pick(['Bearer', 'Bearer x', 'Basic Zm9vOmJhcg==', `Bearer ${api.token}x`]);
  if (random.chance(0.05)) headers['x-tenant'] = random.pick(['', 'globex', 'ACME', 'a'.repeat(300)]);
  if (method === 'GET' || method === 'HEAD') return { method, path, headers };
  const contentType = random.chance(0.5)
    ? 'application/json'
    : random.pick([
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=xyz',
        'application/pdf',
        'text/plain',
        'application/json; charset=utf-16',
      ]);
  headers['content-type'] = contentType;
  if (route.path === '/graphql') headers['apollo-require-preflight'] = 'true';
  let body: string;
  if (route.path === '/graphql' && contentType === 'application/json') body = nastyGraphql(random, uuids);
  else if (contentType.startsWith('multipart'))
    body = `--xyz\r\nContent-Disposition: form-data; name="${random.pick(['files[]', 'file', 'operations', 'map'])}"; filename="a.pdf"\r\n\r\n%PDF-1.7 ${nastyString(random, uuids)}\r\n${random.chance(0.5) ? '--xyz--\r\n' : ''}`;
  else if (contentType.startsWith('application/x-www'))
    body = new URLSearchParams({
      grant_type: nastyString(random, uuids),
      client_id: nastyString(random, uuids),
      client_secret: nastyString(random, uuids),
    }).toString();
  else if (random.chance(0.1)) body = '{"a":'.repeat(random.int(3000)) + '1';
  else if (random.chance(0.5)) body = JSON.stringify(validWithOneHostileField(random, route.path, uuids));
  else body = JSON.stringify(random.chance(0.7) ? nastyObject(random, uuids) : nastyValue(random, uuids, 0)) ?? 'null';
  return { method, path, headers, body };
}

/** Request bytes no HTTP client would send; Node's parser must answer them, never the app with a 5xx. */
function rawRequest(random: Random): string {
  return random.pick(RAW_REQUESTS);
}
const RAW_REQUESTS = [
  'GET /api/v1/institutions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /api/v1/students HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
  'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
  `GET /api/v1/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'BREW /graphql HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"query":',
  'GET /api/v1/institutions HTTP/9.9\r\n\r\n',
  `GET /healthz HTTP/1.1\r\n${'X-A: b\r\n'.repeat(3000)}\r\n`,
];

function sendRaw(url: string, payload: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(payload));
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.\d (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

async function send(request: FuzzRequest): Promise<number> {
  try {
    const response = await fetch(`${service.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(20_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    // fetch itself refuses some header values and methods before sending: nothing reached the server.
    if (error instanceof TypeError && !/fetch failed/.test(error.message)) return -1;
    throw error;
  }
}

describe('fuzzing', () => {
  it(`answers ${REQUESTS} seeded malformed requests across every route without a 5xx, and stays healthy`, async () => {
    // Generated up front, so the same seed gives the same requests whatever the response timing.
    const random = generator(SEED);
    const requests = Array.from({ length: REQUESTS }, () => (random.chance(0.05) ? rawRequest(random) : fuzzRequest(random)));
    const leastPicked = Math.min(...paths.map((route) => picked.get(route) ?? 0));
    const leastRaw = Math.min(...RAW_REQUESTS.map((raw) => requests.filter((request) => request === raw).length));
    expect(leastPicked).toBeGreaterThanOrEqual(AT_LEAST);
    expect(leastRaw).toBeGreaterThanOrEqual(AT_LEAST);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let issued = 0;
    const worker = async () => {
      while (issued < REQUESTS) {
        const index = issued++;
        const request = requests[index]!;
        const status = typeof request === 'string' ? await sendRaw(service.url, request) : await send(request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 500 && failures.length < 20)
          failures.push(
            `#${index} ${typeof request === 'string' ? `raw ${request.slice(0, 80)}` : `${request.method} ${request.path.slice(0, 120)} ${request.headers['content-type'] ?? ''} ${request.body?.slice(0, 160) ?? ''}`} → ${status}`,
          );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.FUZZ_REPORT) console.log(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
    expect({ seed: SEED, failures }).toEqual({ seed: SEED, failures: [] });
    // Most requests reached the application (not all refused at the door).
    const answered = [...statuses].filter(([status]) => status > 0).reduce((sum, [, count]) => sum + count, 0);
    expect(answered).toBeGreaterThan(REQUESTS * 0.9);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect((await api.rest('GET', '/institutions')).status).toBe(200);
  });
});
