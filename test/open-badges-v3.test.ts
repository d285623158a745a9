import { createHash } from 'node:crypto';
import { qrPng } from './support/qr-png.js';
import { rotateIssuerKey } from '../src/badges/v3/issuer-keys.js';
import { Institution } from '../src/institutions/institution.entity.js';
import { achievementCredentialSchemaErrors } from './support/achievement-credential-schema.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { freePort, getJson } from './support/open-badges.js';
import { didWebUrl, referenceVerify } from './support/open-badges-v3.js';
import { diplomaPdf } from './support/pdf.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';

let service: TestService;
let base: string;
let port: number;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  // The public base URL is the server's real address, so the verifier resolves the DIDs as published.
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Two dozen issuances at once queue on the PDF workers and the connection pool: on a busy machine the
  // defaults answer 503 before the last one's turn.
  service = await startTestService({
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    PDF_QUEUE_LIMIT: '64',
    DB_POOL_ACQUIRE_TIMEOUT_MS: '120000',
  });
  acme = await signIn(service, 'acme');
  globex = await signIn(service, 'globex');
});

afterAll(async () => {
  await service?.stop();
});

const BADGE_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/></svg>
`;

async function uploadFile(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0].uuid;
}

async function badgedInstitution(api: ApiClient, image: { bytes: Uint8Array; name: string } = { bytes: Buffer.from(BADGE_SVG), name: 'badge.svg' }) {
  const badge = await uploadFile(api, image.bytes, image.name);
  return factories(api).institution({ is_badges_enabled: true, badge_image_uuid: badge, website: 'https://uni.example' });
}

async function courseOf(api: ApiClient, institutionUuid: string) {
  const make = factories(api);
  const course = await make.course({ institution_uuid: institutionUuid, name: 'Data Engineering', description: 'Pipelines and streams.', workload: 360 });
  const sql = await make.module({ institution_uuid: institutionUuid, name: 'SQL Foundations', workload: 60, credits: 4 });
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, { modules: [{ module_uuid: sql.uuid }] });
  return course;
}

async function draft(api: ApiClient, institutionUuid: string, courseUuid: string, email: string, certificate: Record<string, unknown> = {}) {
  const student = await factories(api).student({ name: 'Ana Souza', email });
  const file = await uploadFile(api, await diplomaPdf(`Diploma of ${email}`), 'diploma.pdf');
  const response = await api.rest('POST', '/certificates', {
    institution_uuid: institutionUuid,
    course_uuid: courseUuid,
    student_uuid: student.uuid,
    file_uuid: file,
    ...certificate,
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

async function issue(api: ApiClient, institutionUuid: string, courseUuid: string, email: string, certificate: Record<string, unknown> = {}) {
  return draft(api, institutionUuid, courseUuid, email, { finish: true, ...certificate });
}

async function credentialOf(api: ApiClient, certificateUuid: string) {
  const response = await api.rest('GET', `/certificates/${certificateUuid}/badges/credentials`);
  if (response.status !== 200) throw new Error(`credential answered ${response.status}: ${JSON.stringify(response.body)}`);
  // Every credential this suite reads meets 1EdTech's AchievementCredential schema, whatever it carries.
  expect(achievementCredentialSchemaErrors(response.body.data)).toEqual([]);
  return response.body.data;
}

const verify = (body: unknown, type = 'application/json') =>
  fetch(`${base}/api/v1/badges/verify`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as any) : JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

describe('an issued certificate as an Open Badges 3.0 credential', () => {
  const email = 'Ana.Souza@Example.org';
  let institution: Record<string, any>;
  let course: Record<string, any>;
  let certificate: Record<string, any>;
  let credential: Record<string, any>;

  beforeAll(async () => {
    institution = await badgedInstitution(acme);
    course = await courseOf(acme, institution.uuid);
    certificate = await issue(acme, institution.uuid, course.uuid, email, { expires_at: '2035-06-30' });
    credential = await credentialOf(acme, certificate.uuid);
  });

  it('is an OpenBadgeCredential of the institution’s did:web issuer with a hashed e-mail, a status entry and an eddsa-rdfc-2022 proof', () => {
    const did = `did:web:127.0.0.1%3A${port}:ob:v3:issuers:${institution.uuid}`;
    const salt = credential.credentialSubject.identifier[0].salt;
    expect(credential).toMatchObject({
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
        'https://purl.imsglobal.org/spec/ob/v3p0/extensions.json',
      ],
      id: `${base}/ob/v3/credentials/${certificate.uuid}`,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: did, type: ['Profile'], name: institution.name, url: 'https://uni.example', email: institution.email, image: { type: 'Image' } },
      validFrom: certificate.issued_at.replace(/\.\d+Z$/, 'Z'),
      validUntil: '2035-06-30T00:00:00Z',
      name: 'Data Engineering',
      credentialSubject: {
        type: ['AchievementSubject'],
        identifier: [
          {
            type: 'IdentityObject',
            identityType: 'emailAddress',
            hashed: true,
            identityHash: `sha256$${createHash('sha256').update(`${email.toLowerCase()}${salt}`).digest('hex')}`,
          },
        ],
        achievement: {
          id: `${base}/ob/v3/achievements/${course.uuid}`,
          type: ['Achievement'],
          name: 'Data Engineering',
          description: 'Pipelines and streams.',
          criteria: { narrative: expect.stringContaining('SQL Foundations') },
          creditsAvailable: 4,
        },
      },
      evidence: [{ id: certificate.public_verification_url, type: ['Evidence'] }],
      credentialStatus: {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListCredential: `${base}/ob/v3/issuers/${institution.uuid}/status/1`,
      },
      credentialSchema: [
        { id: 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json', type: '1EdTechJsonSchemaValidator2019' },
      ],
      proof: [
        {
          type: 'DataIntegrityProof',
          cryptosuite: 'eddsa-rdfc-2022',
          proofPurpose: 'assertionMethod',
          verificationMethod: expect.stringMatching(`^${did}#z6Mk`),
        },
      ],
    });
    expect(didWebUrl(did)).toBe(`${base}/ob/v3/issuers/${institution.uuid}/did.json`);
  });

  it('conforms to 1EdTech’s AchievementCredential JSON Schema, proof as a list included', () => {
    expect(achievementCredentialSchemaErrors(credential)).toEqual([]);
    expect(achievementCredentialSchemaErrors({ ...credential, proof: credential.proof[0] })).toEqual(['.proof should be array']);
  });

  it('serves its Achievement at the achievement’s id, cross-origin, as the schema’s Achievement', async () => {
    const { achievement } = credential.credentialSubject;
    const served = await fetch(achievement.id);
    expect([served.status, served.headers.get('content-type'), served.headers.get('access-control-allow-origin')]).toEqual([
      200,
      'application/ld+json; charset=utf-8',
      '*',
    ]);
    expect(await served.json()).toEqual({ '@context': credential['@context'].slice(0, 2), ...achievement });
    // Unknown, malformed, or a course of an institution without badges: 404.
    const plain = await courseOf(acme, (await factories(acme).institution()).uuid);
    for (const id of [plain.uuid, '0190f5c4-0000-7000-8000-000000000000', 'nope']) {
      expect([id, (await fetch(`${base}/ob/v3/achievements/${id}`)).status]).toEqual([id, 404]);
    }
  });

  it('is served as stored at its id, over REST and in GraphQL alike', async () => {
    expect((await getJson(credential.id)).body).toEqual(credential);
    const graphql = await acme.graphql('query($uuid: ID!) { certificate(uuid: $uuid) { openBadgeCredential } }', { uuid: certificate.uuid });
    expect(graphql.body.data.certificate.openBadgeCredential).toEqual(credential);
  });

  it('verifies with the reference verifier, which resolves the DID document and the status list over HTTP', async () => {
    const result = await referenceVerify(credential);
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(result.statusResult?.results?.[0]).toMatchObject({ verified: true, status: false });
  });

  it('fails verification when one character of the credential subject changes', async () => {
    const altered = structuredClone(credential);
    altered.credentialSubject.achievement.name = 'Data Engineerinh';
    expect((await referenceVerify(altered)).verified).toBe(false);
  });

  it('fails the validity check once validUntil has passed', async () => {
    const result = await referenceVerify(credential, new Date('2035-07-01T00:00:00Z'));
    expect(result.verified).toBe(false);
    expect(result.error?.message).toMatch(/validUntil/);
  });

  it('is answered with every check passed by POST /api/v1/badges/verify, and with the proof failed when altered', async () => {
    const answer = await verify(credential);
    expect(answer).toEqual({
      status: 200,
      body: {
        data: {
          verified: true,
          credential_id: credential.id,
          image_type: null,
          checks: {
            proof: { passed: true, message: null },
            status: { passed: true, message: null, revoked: false },
            validity_period: { passed: true, message: null },
            issuer_known: { passed: true, message: null },
            // Anchoring is off here: nothing to check (test/anchoring.test.ts checks it on a chain).
            anchor: null,
          },
        },
      },
    });
    const altered = structuredClone(credential);
    altered.credentialSubject.identifier[0].salt = `${altered.credentialSubject.identifier[0].salt.slice(0, -1)}x`;
    const refused = await verify(altered);
    expect(refused.body.data).toMatchObject({ verified: false, checks: { proof: { passed: false } } });
  });

  it('is not visible to another tenant', async () => {
    expect((await globex.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).status).toBe(404);
  });
});

describe('revocation through the Bitstring Status List', () => {
  it('reports the credential revoked after the certificate is revoked, on a list served with a short Cache-Control', async () => {
    const institution = await badgedInstitution(acme);
    const course = await courseOf(acme, institution.uuid);
    const certificate = await issue(acme, institution.uuid, course.uuid, 'revoked@example.org');
    const credential = await credentialOf(acme, certificate.uuid);
    expect((await referenceVerify(credential)).statusResult?.results?.[0]?.status).toBe(false);

    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);

    const list = await getJson(credential.credentialStatus.statusListCredential);
    expect(list.headers.get('cache-control')).toMatch(/max-age=([1-5]?[0-9]|60)\b/);
    expect(list.body).toMatchObject({ type: ['VerifiableCredential', 'BitstringStatusListCredential'], issuer: credential.issuer.id });
    const result = await referenceVerify(credential);
    expect(result.statusResult?.results?.[0]).toMatchObject({ verified: true, status: true });
    expect((await verify(credential)).body.data).toMatchObject({
      verified: false,
      checks: { status: { passed: false, revoked: true }, proof: { passed: true } },
    });
  });
});

describe('issuer keys', () => {
  it('keeps a credential signed before a key rotation verifying after it, while new ones use the new key', async () => {
    const institution = await badgedInstitution(acme);
    const course = await courseOf(acme, institution.uuid);
    const before = await credentialOf(acme, (await issue(acme, institution.uuid, course.uuid, 'before@example.org')).uuid);

    const em = service.orm.em.fork();
    const row = await em.findOneOrFail(Institution, { uuid: institution.uuid }, { filters: false });
    const rotated = await rotateIssuerKey({ em, signingKeys: service.runtime.signingKeys }, row);
    expect(rotated.retired).toBe(1);

    const after = await credentialOf(acme, (await issue(acme, institution.uuid, course.uuid, 'after@example.org')).uuid);
    expect(after.proof[0].verificationMethod).toBe(`${after.issuer.id}#${rotated.publicKeyMultibase}`);
    expect(after.proof[0].verificationMethod).not.toBe(before.proof[0].verificationMethod);
    const did = (await getJson(didWebUrl(after.issuer.id))).body;
    expect(did.assertionMethod).toEqual([after.proof[0].verificationMethod, before.proof[0].verificationMethod]);
    expect((await referenceVerify(before)).verified).toBe(true);
    expect((await referenceVerify(after)).verified).toBe(true);
  });

  it('never publishes the secret key', async () => {
    const institution = await badgedInstitution(acme);
    const course = await courseOf(acme, institution.uuid);
    const credential = await credentialOf(acme, (await issue(acme, institution.uuid, course.uuid, 'key@example.org')).uuid);
    const did = await getJson(didWebUrl(credential.issuer.id));
    expect(JSON.stringify(did.body)).not.toMatch(/secret|private/i);
    const [stored] = await service.orm.em
      .getConnection()
      .execute('select sealed_secret_key from ob3_issuer_keys where institution_uuid = ?', [institution.uuid]);
    expect(Buffer.from(stored.sealed_secret_key).toString('latin1')).not.toMatch(/z[1-9A-HJ-NP-Za-km-z]{40,}/);
  });
});

describe('status indexes under concurrency', () => {
  // More at once than the connection pool's 20, all of them a fresh institution's first allocations.
  const concurrent = 24;

  it(`gives ${concurrent} concurrent issuances of one institution ${concurrent} distinct status indexes`, async () => {
    const institution = await badgedInstitution(acme);
    const course = await courseOf(acme, institution.uuid);
    const drafts = [];
    for (let i = 0; i < concurrent; i++) drafts.push(await draft(acme, institution.uuid, course.uuid, `c${i}@example.org`));
    const issued = await Promise.all(drafts.map((certificate) => acme.rest('POST', `/certificates/${certificate.uuid}/issue`)));
    expect(issued.filter((response) => response.status !== 200).map((response) => response.body)).toEqual([]);
    const credentials = await Promise.all(drafts.map((certificate) => credentialOf(acme, certificate.uuid)));
    const indexes = new Set(credentials.map((credential) => credential.credentialStatus.statusListIndex));
    expect(indexes.size).toBe(concurrent);
  }, 240_000);

  it('reads the credentials of a whole GraphQL page in one query', async () => {
    service.statements.length = 0;
    const page = await acme.graphql('{ certificates(first: 50) { nodes { uuid openBadgeCredential } } }');
    const nodes = page.body.data.certificates.nodes as { openBadgeCredential: { id: string } | null }[];
    expect(nodes.filter((node) => node.openBadgeCredential).length).toBeGreaterThanOrEqual(concurrent);
    expect(service.statements.filter((sql) => sql.includes('ob3_credentials'))).toHaveLength(1);
  });
});

describe('baked credentials', () => {
  it.each([
    ['png', async () => ({ bytes: await qrPng('badge v3'), name: 'badge.png' }), 'image/png'],
    ['svg', async () => ({ bytes: Buffer.from(BADGE_SVG), name: 'badge.svg' }), 'image/svg+xml'],
  ])('round-trips a %s baked with the credential through POST /api/v1/badges/verify', async (type, image, mime) => {
    const institution = await badgedInstitution(acme, await image());
    const course = await courseOf(acme, institution.uuid);
    const certificate = await issue(acme, institution.uuid, course.uuid, `${type}@example.org`);
    const baked = await fetch(`${base}/ob/v3/credentials/${certificate.uuid}/image.${type}`);
    expect([baked.status, baked.headers.get('content-type')]).toEqual([200, mime]);
    const bytes = Buffer.from(await baked.arrayBuffer());
    if (type === 'png') expect(bytes.includes(Buffer.from('openbadgecredential\0'))).toBe(true);
    else expect(bytes.toString('utf8')).toMatch(/<openbadges:credential><!\[CDATA\[/);
    const answer = await verify(new Uint8Array(bytes), mime);
    expect(answer.body.data).toMatchObject({ verified: true, image_type: type, credential_id: `${base}/ob/v3/credentials/${certificate.uuid}` });
  });
});

describe('POST /api/v1/badges/verify with hostile or foreign input', () => {
  it('refuses what is not a credential with a 422 naming it, and an image of another kind with a 415', async () => {
    expect(await verify('{"not json')).toMatchObject({ status: 422, body: { errors: { credential: ['The credential is not JSON.'] } } });
    expect(await verify('[1,2]')).toMatchObject({ status: 422, body: { errors: { credential: ['The credential must be a JSON object.'] } } });
    expect((await verify(JSON.stringify({ padding: 'x'.repeat(70_000) }))).status).toBe(422);
    expect((await verify(`${'['.repeat(40)}${']'.repeat(40)}`)).status).toBe(422);
    expect((await verify(new Uint8Array(Buffer.from(BADGE_SVG)), 'image/svg+xml')).body).toMatchObject({
      errors: { file: ['No Open Badges 3.0 credential is baked into this image.'] },
    });
    expect((await verify(new Uint8Array(Buffer.from('GIF89a....')), 'application/octet-stream')).status).toBe(415);
  });

  it('refuses an object that is not a verifiable credential ({} among them) with a 422 naming every missing member, never the libraries’ internals', async () => {
    const empty = await verify({});
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({
      message: 'The credential must have an @context list. (and 3 more errors)',
      errors: {
        credential: [
          'The credential must have an @context list.',
          'The credential type must include VerifiableCredential.',
          'The credential must name its issuer.',
          'The credential must have a credentialSubject.',
        ],
      },
    });
    const unsigned = await verify({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential'],
      issuer: 'did:web:issuer.example',
      credentialSubject: { id: 'did:example:1' },
    });
    expect(JSON.stringify(unsigned.body)).not.toMatch(/Cannot read|undefined/);
    expect(unsigned.status === 422 || unsigned.body.data?.checks.proof.passed === false).toBe(true);
  });

  it('fetches nothing for a credential of another issuer or with unknown contexts: the proof fails and the issuer is unknown', async () => {
    const foreign = {
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://contexts.example/unknown.json'],
      type: ['VerifiableCredential'],
      issuer: 'did:web:issuer.example',
      validFrom: '2020-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:1' },
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-rdfc-2022',
        verificationMethod: 'did:web:issuer.example#key',
        proofPurpose: 'assertionMethod',
        proofValue: 'z1',
      },
    };
    const answer = await verify(foreign);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      verified: false,
      checks: { proof: { passed: false }, issuer_known: { passed: false } },
    });
  });
});

describe('credentials stored before proofs became a list', () => {
  it('are presented with `proof` as a list everywhere, and still verify: the list is not signed', async () => {
    const institution = await badgedInstitution(acme);
    const course = await courseOf(acme, institution.uuid);
    const certificate = await issue(acme, institution.uuid, course.uuid, 'legacy@example.org');
    const current = await credentialOf(acme, certificate.uuid);
    // As issuance stored them before: one proof object.
    await service.orm.em
      .fork()
      .getConnection()
      .execute(`update ob3_credentials set document = jsonb_set(document, '{proof}', document->'proof'->0) where certificate_uuid = ?`, [certificate.uuid]);
    const stored = await service.orm.em
      .fork()
      .getConnection()
      .execute(`select document->'proof' as proof from ob3_credentials where certificate_uuid = ?`, [certificate.uuid]);
    expect(Array.isArray(stored[0].proof)).toBe(false);

    const presented = await credentialOf(acme, certificate.uuid);
    expect(presented).toEqual(current);
    expect((await getJson(current.id)).body).toEqual(current);
    expect((await referenceVerify(presented)).verified).toBe(true);
    expect((await verify(presented)).body.data.verified).toBe(true);
    const baked = Buffer.from(await (await fetch(`${current.id}/image.svg`)).arrayBuffer());
    expect((await verify(new Uint8Array(baked), 'image/svg+xml')).body.data).toMatchObject({ verified: true, image_type: 'svg' });
  });
});

describe('expiry after the issue', () => {
  let institution: Record<string, any>;
  let course: Record<string, any>;
  beforeAll(async () => {
    institution = await badgedInstitution(acme);
    course = await courseOf(acme, institution.uuid);
  });
  const EXPIRY_ERROR = 'The expires at field must be a date after the issue time.';

  it('refuses an expires_at at or before the issue time with a 422 naming it, over REST and GraphQL', async () => {
    const past = new Date(Date.now() - 86_400_000).toISOString();
    const created = await draft(acme, institution.uuid, course.uuid, 'born-expired@example.org', { expires_at: past }).catch((error: Error) => error.message);
    expect(created).toMatch(/^create answered 422: .*expires_at/);
    const pending = await draft(acme, institution.uuid, course.uuid, 'never-expired@example.org');
    for (const fields of [{ finish: true, expires_at: past }, { expires_at: past }]) {
      const response = await acme.rest('PATCH', `/certificates/${pending.uuid}`, fields);
      expect([response.status, response.body.errors]).toEqual([422, { expires_at: [EXPIRY_ERROR] }]);
    }
    const graphql = await acme.graphql('mutation($uuid: ID!, $input: UpdateCertificateInput!) { updateCertificate(uuid: $uuid, input: $input) { uuid } }', {
      uuid: pending.uuid,
      input: { expiresAt: past, finish: true },
    });
    expect(graphql.body.errors[0]).toMatchObject({ message: EXPIRY_ERROR, extensions: { code: 'BAD_USER_INPUT', errors: { expiresAt: [EXPIRY_ERROR] } } });
    expect((await acme.rest('GET', `/certificates/${pending.uuid}`)).body.data).toMatchObject({ status: 'draft', expires_at: null });
  });

  it('checks a draft again when it is issued: an expiry that has passed since refuses issuance', async () => {
    const pending = await draft(acme, institution.uuid, course.uuid, 'lapsed-draft@example.org', { expires_at: '2036-01-01' });
    await service.orm.em.fork().getConnection().execute(`update certificates set expires_at = now() - interval '1 minute' where uuid = ?`, [pending.uuid]);
    const rest = await acme.rest('POST', `/certificates/${pending.uuid}/issue`);
    expect([rest.status, rest.body.errors]).toEqual([422, { expires_at: [EXPIRY_ERROR] }]);
    const graphql = await acme.graphql('mutation($uuid: ID!) { issueCertificate(uuid: $uuid) { uuid } }', { uuid: pending.uuid });
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { expiresAt: [EXPIRY_ERROR] } });
    expect((await acme.rest('GET', `/certificates/${pending.uuid}`)).body.data.status).toBe('draft');
  });

  it('issues with validUntil after validFrom and an OB 2.0 expires after issuedOn', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const certificate = await issue(acme, institution.uuid, course.uuid, 'expiring@example.org', { expires_at: later });
    const credential = await credentialOf(acme, certificate.uuid);
    expect(Date.parse(credential.validUntil)).toBeGreaterThan(Date.parse(credential.validFrom));
    expect(achievementCredentialSchemaErrors(credential)).toEqual([]);
    const assertion = (await getJson(`${base}/ob/v2/assertions/${certificate.uuid}`)).body;
    expect(Date.parse(assertion.expires)).toBeGreaterThan(Date.parse(assertion.issuedOn));
  });
});
