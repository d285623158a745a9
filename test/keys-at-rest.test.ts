import { spawn } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { startEmbeddedChain } from '../src/anchoring/embedded-chain.js';
import { createSigningIdentity, inspectSignedPdf, loadSigningIdentity } from '../src/documents/index.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(90_000);

const newKek = () => randomBytes(32).toString('base64');
const firstKek = newKek();

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(); // outlives the service processes of each test
});
afterAll(() => database.drop());

/** Issues a certificate of a new student at `institution` (a new institution when not given). */
async function issue(api: ApiClient, institution?: { uuid: string; course: string }) {
  const make = factories(api);
  const institutionUuid = institution?.uuid ?? (await make.institution({ name: 'Escola de Chaves' })).uuid;
  const courseUuid = institution?.course ?? (await make.course({ institution_uuid: institutionUuid })).uuid;
  const student = await make.student();
  const file = (await upload(api, [[await diplomaPdf(`Diploma ${student.uuid}`), 'diploma.pdf']])).body.data[0];
  const response = await api.rest('POST', '/certificates', {
    institution_uuid: institutionUuid,
    course_uuid: courseUuid,
    student_uuid: student.uuid,
    file_uuid: file.uuid,
    finish: true,
  });
  return { response, institution: { uuid: institutionUuid, course: courseUuid } };
}

async function signedPdf(service: TestService, certificate: { files: { type: string; uuid: string }[] }): Promise<Buffer> {
  const file = certificate.files.find((entry) => entry.type === 'certificate')!;
  return Buffer.from(await (await fetch(`${service.url}/api/v1/files/${file.uuid}/download`)).arrayBuffer());
}

const identityRows = (service: TestService, institution: string) =>
  service.orm.em.getConnection().execute<Record<string, unknown>[]>('select * from signing_identities where institution_uuid = ?', [institution]);

/** Runs the built operator CLI against the test database. */
function cli(args: string[], env: Record<string, string>, on: TestDatabase = database): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', ...args], {
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: on.url, DATABASE_MIGRATION_URL: on.ownerUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

async function withService<T>(kek: string, work: (service: TestService, api: ApiClient) => Promise<T>): Promise<T> {
  const service = await startTestService({ KEY_ENCRYPTION_KEY: kek, NOTIFICATION_WORKER: 'off' }, database);
  try {
    return await work(service, await signIn(service, 'acme'));
  } finally {
    await service.stop();
  }
}

describe('signing keys at rest', () => {
  let first: { institution: { uuid: string; course: string }; pdf: Buffer; fingerprint: string };

  it('are stored sealed: nothing in the row opens as a private key or as a PKCS#12 with anything else stored', async () => {
    first = await withService(firstKek, async (service, api) => {
      const { response, institution } = await issue(api);
      expect(response.status).toBe(201);
      const pdf = await signedPdf(service, response.body.data);
      const [row] = await identityRows(service, institution.uuid);
      expect(Object.keys(row!)).not.toEqual(expect.arrayContaining(['passphrase']));
      expect(Object.keys(row!)).not.toEqual(expect.arrayContaining(['p12']));
      const bytes = Object.values(row!).filter((value): value is Buffer => Buffer.isBuffer(value));
      const texts = ['', ...Object.values(row!).map(String)];
      expect(bytes.length).toBeGreaterThan(0);
      for (const value of bytes) {
        expect(() => createPrivateKey({ key: value, format: 'der', type: 'pkcs8' })).toThrow();
        for (const text of texts) expect(() => loadSigningIdentity(value, text)).toThrow();
        expect(value.toString('latin1')).not.toContain('PRIVATE KEY');
      }
      const fingerprint = (await inspectSignedPdf(pdf)).certificateFingerprintSha256!;
      expect(row!.fingerprint_sha256).toBe(fingerprint);
      return { institution, pdf, fingerprint };
    });
  });

  it('sign again after a restart with the same key-encryption key', async () => {
    await withService(firstKek, async (service, api) => {
      const { response } = await issue(api, first.institution);
      expect(response.status).toBe(201);
      expect(await inspectSignedPdf(await signedPdf(service, response.body.data))).toMatchObject({
        intact: true,
        certificateFingerprintSha256: first.fingerprint,
      });
    });
  });

  it('keep the service from starting under a wrong key-encryption key, naming the variable', async () => {
    await expect(startTestService({ KEY_ENCRYPTION_KEY: newKek() }, database)).rejects.toThrow(
      /KEY_ENCRYPTION_KEY \("local:[0-9a-f]{16}"\) does not open the stored signing keys/,
    );
  });

  it('do not open on another row: a sealed key copied onto another identity makes its issuance fail, nothing issued', async () => {
    const sql = (service: TestService, query: string, params: unknown[]) => service.orm.em.getConnection().execute(query, params);
    const other = await withService(firstKek, async (service, api) => {
      const { response, institution } = await issue(api);
      expect(response.status).toBe(201);
      const [own] = await sql(service, 'select sealed_private_key from signing_identities where institution_uuid = ?', [institution.uuid]);
      await sql(
        service,
        'update signing_identities set sealed_private_key = (select sealed_private_key from signing_identities where institution_uuid = ?) where institution_uuid = ?',
        [first.institution.uuid, institution.uuid],
      );
      return { institution, own: own!.sealed_private_key as Buffer };
    });
    await withService(firstKek, async (service, api) => {
      const { response } = await issue(api, other.institution); // a new process: no key opened yet
      expect(response.status).toBe(500);
      const [row] = await sql(service, `select count(*)::int as issued from certificates where institution_uuid = ? and status = 'issued'`, [
        other.institution.uuid,
      ]);
      expect(row!.issued).toBe(1);
      await sql(service, 'update signing_identities set sealed_private_key = ? where institution_uuid = ?', [other.own, other.institution.uuid]);
    });
  });

  it('stored before encryption at rest (PKCS#12 beside its passphrase) are sealed at startup and keep signing', async () => {
    const operator = createSigningIdentity({ institutionName: 'Escola Antiga' });
    const legacy = await withService(firstKek, async (service, api) => {
      const institution = await factories(api).institution({ name: 'Escola Antiga' });
      const course = await factories(api).course({ institution_uuid: institution.uuid });
      await service.orm.em.getConnection().execute(
        `insert into signing_identities_unsealed (uuid, tenant_uuid, institution_uuid, created_at, updated_at, deleted_at, p12, passphrase, fingerprint_sha256, not_after, origin)
         select gen_random_uuid(), tenant_uuid, uuid, now(), now(), null, ?, ?, ?, ?, 'installed' from institutions where uuid = ?`,
        [operator.p12, operator.passphrase, operator.fingerprintSha256, operator.notAfter, institution.uuid],
      );
      return { uuid: institution.uuid, course: course.uuid };
    });
    await withService(firstKek, async (service, api) => {
      const [waiting] = await service.orm.em.getConnection().execute('select count(*)::int as n from signing_identities_unsealed');
      expect(waiting!.n).toBe(0);
      const [row] = await identityRows(service, legacy.uuid);
      for (const text of ['', operator.passphrase]) expect(() => loadSigningIdentity(row!.sealed_private_key as Buffer, text)).toThrow();
      const { response } = await issue(api, legacy);
      expect(response.status).toBe(201);
      expect(await inspectSignedPdf(await signedPdf(service, response.body.data))).toMatchObject({
        intact: true,
        certificateFingerprintSha256: operator.fingerprintSha256,
      });
    });
  });

  it('are re-wrapped by keys:rewrap: the new key signs with the same certificate, documents signed before still verify', async () => {
    const secondKek = newKek();
    const rotated = await cli(['keys:rewrap'], { KEY_ENCRYPTION_KEY: firstKek, NEW_KEY_ENCRYPTION_KEY: secondKek });
    expect(rotated.output).toMatch(/\d+ signing key\(s\) re-wrapped from local:[0-9a-f]{16} to local:[0-9a-f]{16}; 0 already under/);
    expect(rotated.code).toBe(0);

    await expect(startTestService({ KEY_ENCRYPTION_KEY: firstKek }, database)).rejects.toThrow(/does not open the stored signing keys/);
    await withService(secondKek, async (service, api) => {
      const { response } = await issue(api, first.institution);
      expect(response.status).toBe(201);
      expect(await inspectSignedPdf(await signedPdf(service, response.body.data))).toMatchObject({
        intact: true,
        certificateFingerprintSha256: first.fingerprint,
      });
      expect(await inspectSignedPdf(first.pdf)).toMatchObject({ intact: true, certificateFingerprintSha256: first.fingerprint });
      const verdict = await fetch(`${service.url}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: new Uint8Array(first.pdf),
      });
      expect(verdict.status).toBe(200);
      expect(((await verdict.json()) as any).data).toMatchObject({ verdict: 'authentic' });
    });
  });
});

describe('the sealed anchoring key', () => {
  it('is re-wrapped by keys:rewrap with the other keys: the new key opens it, anchoring goes on from the same address, the old key no longer starts', async () => {
    const own = await createTestDatabase();
    const chain = await startEmbeddedChain([]);
    const anchoring = { ANCHOR_RPC_URL: chain.url, ANCHOR_NETWORK: 'sepolia', ANCHOR_INTERVAL_SECONDS: '3600', NOTIFICATION_WORKER: 'off' };
    try {
      const before = await startTestService({ ...anchoring, KEY_ENCRYPTION_KEY: firstKek }, own);
      const address = before.runtime.anchoring!.identity.address;
      await before.stop();

      const secondKek = newKek();
      const rotated = await cli(['keys:rewrap'], { KEY_ENCRYPTION_KEY: firstKek, NEW_KEY_ENCRYPTION_KEY: secondKek }, own);
      expect(rotated.output).toMatch(/^1 signing key\(s\) re-wrapped/m);
      expect(rotated.code).toBe(0);

      await expect(startTestService({ ...anchoring, KEY_ENCRYPTION_KEY: firstKek }, own)).rejects.toThrow(/does not open the stored signing keys/);
      const after = await startTestService({ ...anchoring, KEY_ENCRYPTION_KEY: secondKek }, own);
      expect(after.runtime.anchoring!.identity.address).toBe(address);
      await after.stop();
    } finally {
      await chain.close();
      await own.drop();
    }
  });
});
