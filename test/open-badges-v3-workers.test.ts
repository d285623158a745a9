import { performance } from 'node:perf_hooks';
import { warmUpCredentialChecks } from '../src/badges/v3/credential-warm-up.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { encodePng } from './support/open-badges.js';
import { diplomaPdf } from './support/pdf.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';
import { until } from './support/wait.js';

// The CPU-heavy part of POST /api/v1/badges/verify (unbaking, RDF canonicalisation, signatures) and
// of baked image downloads runs on the badge workers. The server runs in this very thread, so whatever it computes on its event
// loop shows here as event-loop utilisation, and delays this thread's timers and other requests.

const BADGE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30"/></svg>';

/** A certificate of a badges-enabled institution whose badge image is `badge`, and its Open Badges 3.0 credential. */
async function issuedCredential(api: ApiClient, badge: [Uint8Array, string] = [Buffer.from(BADGE_SVG), 'badge.svg']) {
  const make = factories(api);
  const image = await upload(api, [badge]);
  const institution = await make.institution({ is_badges_enabled: true, badge_image_uuid: image.body.data[0].uuid });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering' });
  const student = await make.student({ name: 'Ana Souza', email: `${crypto.randomUUID()}@example.org` });
  const file = await upload(api, [[await diplomaPdf(crypto.randomUUID()), 'diploma.pdf']]);
  const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file.body.data[0].uuid, finish: true };
  const certificate = await api.rest('POST', '/certificates', body);
  if (certificate.status !== 201) throw new Error(`issuance answered ${certificate.status}: ${JSON.stringify(certificate.body)}`);
  const uuid: string = certificate.body.data.uuid;
  return { uuid, credential: (await api.rest('GET', `/certificates/${uuid}/badges/credentials`)).body.data as Record<string, any> };
}

/**
 * Our credential with `alignments` bare alignments, each a blank node for the canonicalisation to label
 * (about 0.8 ms of CPU each on a quiet machine). 3,000 of them are just under the 64 KiB limit: 2-3 s of
 * CPU, a hundred times one of ours.
 */
function craftedCredential(credential: Record<string, any>, alignments = 3_000): Record<string, any> {
  const crafted = structuredClone(credential);
  crafted.credentialSubject.achievement.alignment = Array.from({ length: alignments }, () => ({ type: 'Alignment' }));
  return crafted;
}

/** A PNG of `bytes` made of empty tEXt chunks: each one is read and its CRC checked, about 0.4 µs a byte. */
function manyChunkPng(bytes: number): Uint8Array {
  const chunk = (type: string) => encodePng([{ type, data: Buffer.alloc(type === 'IHDR' ? 13 : 0) }]).subarray(8);
  const text = chunk('tEXt');
  const count = Math.floor((bytes - 8 - 25 - 12) / text.length);
  return new Uint8Array(Buffer.concat([encodePng([{ type: 'IHDR', data: Buffer.alloc(13) }]), Buffer.concat(Array(count).fill(text)), chunk('IEND')]));
}

const verify = (service: TestService, body: unknown, type = 'application/json') =>
  fetch(`${service.url}/api/v1/badges/verify`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

/**
 * Sends `heavy`, and while it is in flight a GET /healthz; records which answer came first and the
 * share of this thread's time its event loop was busy until both were answered.
 */
async function alongsideHealthCheck<T>(service: TestService, heavy: () => Promise<T>) {
  const order: string[] = [];
  const before = performance.eventLoopUtilization();
  const answer = heavy().then((result) => (order.push('heavy'), result));
  // Sent once the heavy request has reached the server; a blocked event loop delays this timer too.
  await new Promise((resolve) => setTimeout(resolve, 150));
  const health = fetch(`${service.url}/healthz`).then((response) => (order.push('healthz'), response.status));
  const [result, healthStatus] = await Promise.all([answer, health]);
  return { result, healthStatus, order, utilisation: performance.eventLoopUtilization(before).utilization };
}

it('passes the proof and status checks of the throwaway credential every badge worker checks before its first job', async () => {
  expect(await warmUpCredentialChecks()).toEqual({
    proof: { passed: true, message: null },
    status: { passed: true, message: null, revoked: false },
  });
});

// One service for the checks that must run to their end: two badge workers (what a 2- or 3-core machine
// gets by default), its client address from X-Forwarded-For, and a generous limit, however busy the machine.
describe('on a service whose heavy checks run to their end', () => {
  let service: TestService;
  let acme: ApiClient;
  let credential: Record<string, any>;

  beforeAll(async () => {
    service = await startTestService({ PUBLIC_WORKERS: '2', TRUST_PROXY: 'loopback', BADGE_VERIFY_TIMEOUT_MS: '60000' });
    acme = await signIn(service, 'acme');
    ({ credential } = await issuedCredential(acme));
    // The first job also starts a worker; the measurements below are of work, not of a thread's start.
    expect((await verify(service, credential)).body.data.verified).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  describe('POST /api/v1/badges/verify keeps the event loop free', () => {
    it('answers a health check while a crafted credential is canonicalised, and barely uses the event loop meanwhile', async () => {
      const crafted = craftedCredential(credential);
      expect(JSON.stringify(crafted).length).toBeGreaterThan(60_000);
      expect(JSON.stringify(crafted).length).toBeLessThan(64 * 1024);
      const { result, healthStatus, order, utilisation } = await alongsideHealthCheck(service, () => verify(service, crafted));
      expect(result.status).toBe(200);
      expect(result.body.data).toMatchObject({ verified: false, checks: { proof: { passed: false }, issuer_known: { passed: true } } });
      expect(healthStatus).toBe(200);
      expect(order).toEqual(['healthz', 'heavy']);
      // On the event loop the same request keeps it busy ~95% of the time (rdf-canonize yields between batches).
      expect(utilisation).toBeLessThan(0.5);
    });

    it('answers a health check while a hostile PNG is read for a baked credential', async () => {
      const png = manyChunkPng(2 * 1024 * 1024 - 1);
      const { result, healthStatus, order } = await alongsideHealthCheck(service, () => verify(service, png, 'image/png'));
      expect(result).toMatchObject({ status: 422, body: { errors: { file: ['No Open Badges 3.0 credential is baked into this image.'] } } });
      expect(healthStatus).toBe(200);
      expect(order).toEqual(['healthz', 'heavy']);
    });
  });

  describe('baked badge images of a hostile badge image', () => {
    let hostile: string;

    beforeAll(async () => {
      // A tenant's own upload, but served (and baked) for anyone who asks.
      ({ uuid: hostile } = await issuedCredential(acme, [manyChunkPng(2 * 1024 * 1024), 'badge.png']));
    }, 120_000);

    it('answers a health check while the image is baked for a public download', async () => {
      const download = () =>
        fetch(`${service.url}/ob/v3/credentials/${hostile}/image.png`).then(async (response) => ({
          status: response.status,
          bytes: (await response.arrayBuffer()).byteLength,
        }));
      const { result, healthStatus, order } = await alongsideHealthCheck(service, download);
      expect(result.status).toBe(200);
      expect(result.bytes).toBeGreaterThan(2 * 1024 * 1024);
      expect(healthStatus).toBe(200);
      expect(order).toEqual(['healthz', 'heavy']);
    });
  });

  describe('one address’s heavy credential checks and everyone else’s', () => {
    const verifyFrom = (address: string, body: unknown) =>
      fetch(`${service.url}/api/v1/badges/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

    it('refuses a credential repeating its @context a thousand times with a 422, without a worker', async () => {
      const pool = service.runtime.badgeWorkers.pool;
      const before = pool.dispatched;
      const bomb = { ...credential, '@context': Array.from({ length: 1_500 }, () => credential['@context'][0]) };
      expect(await verifyFrom('198.51.100.30', bomb)).toEqual({
        status: 422,
        body: { message: 'The credential lists an @context more than once.', errors: { credential: ['The credential lists an @context more than once.'] } },
      });
      const scoped = structuredClone(credential);
      scoped.credentialSubject.achievement.alignment = Array.from({ length: 20 }, () => ({
        '@context': { name: 'https://schema.org/name' },
        type: 'Alignment',
      }));
      expect(await verifyFrom('198.51.100.30', scoped)).toMatchObject({
        status: 422,
        body: { errors: { credential: ['The credential may not have more than 16 @context entries.'] } },
      });
      expect(pool.dispatched).toBe(before);
    });

    it("verifies another address's credential on the worker one address's heavy checks leave free", async () => {
      const pool = service.runtime.badgeWorkers.pool;
      // Both workers started and warm, so what is measured is who gets one.
      for (let round = 0; pool.size < 2 && round < 10; round++) {
        await Promise.all([31, 32, 35, 36].map((host) => verifyFrom(`198.51.100.${host}`, credential)));
      }
      expect(pool.size).toBe(2);
      const base = pool.dispatched;
      const order: string[] = [];
      // A third of the largest credential (~0.8 s of CPU each) outlasts the victim's check ~30 times.
      const heavy = [1, 2].map((n) => verifyFrom('198.51.100.33', craftedCredential(credential, 1_000)).then((answer) => (order.push(`heavy ${n}`), answer)));
      await until(() => pool.dispatched - base + pool.queued === 2, 'both heavy checks to reach the pool');
      const victim = await verifyFrom('198.51.100.34', credential).then((answer) => (order.push('victim'), answer));
      expect(victim.body.data.verified).toBe(true);
      for (const answer of await Promise.all(heavy)) expect(answer.body.data.verified).toBe(false);
      // The second heavy check waited for the first: one address holds one of the two workers.
      expect(order[0]).toBe('victim');
    }, 120_000);
  });
});

describe('POST /api/v1/badges/verify past BADGE_VERIFY_TIMEOUT_MS', () => {
  let service: TestService;
  let acme: ApiClient;
  let credential: Record<string, any>;

  beforeAll(async () => {
    // Ours verify in 10-40 ms on a warmed-up worker; the crafted credential and images need seconds.
    // A larger image limit makes an image that takes several times the limit to read.
    service = await startTestService({ BADGE_VERIFY_TIMEOUT_MS: '200', BADGE_UNBAKE_MAX_BYTES: String(8 * 1024 * 1024) });
    acme = await signIn(service, 'acme');
    ({ credential } = await issuedCredential(acme));
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('refuses a credential that takes longer with a 422 naming the limit, and verifies the next one on a fresh worker', async () => {
    const refused = await verify(service, craftedCredential(credential));
    expect(refused).toEqual({
      status: 422,
      body: {
        message: 'The credential cannot be verified within 200 ms; it is refused.',
        reason: 'PROCESSING_LIMIT',
        errors: { credential: ['The credential cannot be verified within 200 ms; it is refused.'] },
      },
    });
    const next = await verify(service, credential);
    expect(next).toMatchObject({ status: 200, body: { data: { verified: true, credential_id: credential.id } } });
  });

  it('refuses to bake a badge image that takes longer, with a 422 on the image', async () => {
    const { uuid } = await issuedCredential(acme, [manyChunkPng(2 * 1024 * 1024), 'badge.png']);
    const response = await fetch(`${service.url}/ob/v3/credentials/${uuid}/image.png`);
    expect([response.status, await response.json()]).toEqual([
      422,
      expect.objectContaining({ reason: 'PROCESSING_LIMIT', errors: { image: ['The badge image cannot be baked within 200 ms; it is refused.'] } }),
    ]);
  });

  it('refuses an image that takes longer to unbake with a 422 on the file', async () => {
    expect(await verify(service, manyChunkPng(8 * 1024 * 1024 - 1), 'image/png')).toMatchObject({
      status: 422,
      body: { reason: 'PROCESSING_LIMIT', errors: { file: ['The image cannot be read within 200 ms; it is refused.'] } },
    });
    expect((await verify(service, credential)).body.data.verified).toBe(true);
  });
});
