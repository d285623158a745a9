import { PNG as PngImage } from 'pngjs';
import { qrPng } from './support/qr-png.js';
import { factories } from './support/factories.js';
import { upload, uploadPdf } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import {
  encodePng,
  freePort,
  getJson,
  iTXtChunk,
  iTXtText,
  isOpenBadgesText,
  OB2_CONTEXT,
  pngChunks,
  svgAssertion,
  verifyHostedAssertion,
} from './support/open-badges.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';

let service: TestService;
let base: string;
let acme: ApiClient;
let globex: ApiClient;

beforeAll(async () => {
  // The public base URL is the server's real address, so a verifier follows the ids as published.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: base });
  acme = await signIn(service, 'acme');
  globex = await signIn(service, 'globex');
});

afterAll(async () => {
  await service?.stop();
});

const BADGE_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
  <title>Badge</title>
  <circle cx="32" cy="32" r="30" fill="#1f4fd1"/>
</svg>
`;

async function uploadFile(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0].uuid;
}

const badgePng = (label: string) => qrPng(`badge ${label}`);

async function badgedInstitution(api: ApiClient, image: { bytes: Uint8Array; name: string }, fields: Record<string, unknown> = {}) {
  const badge = await uploadFile(api, image.bytes, image.name);
  return factories(api).institution({ is_badges_enabled: true, badge_image_uuid: badge, website: 'https://uni.example', ...fields });
}

/** A course with a description, a workload and grouped modules, and a certificate of it issued to `email`. */
async function issued(api: ApiClient, institutionUuid: string, email: string, certificate: Record<string, unknown> = {}) {
  const make = factories(api);
  const course = await make.course({
    institution_uuid: institutionUuid,
    name: 'Data Engineering',
    description: 'Pipelines, warehouses and streams.',
    workload: 360,
  });
  const core = await make.group(course.uuid, { name: 'Core', order: 1 });
  const advanced = await make.group(course.uuid, { name: 'Advanced', order: 2 });
  const sql = await make.module({ institution_uuid: institutionUuid, name: 'SQL Foundations', workload: 60 });
  const streaming = await make.module({ institution_uuid: institutionUuid, name: 'Streaming', workload: 40 });
  const ethics = await make.module({ institution_uuid: institutionUuid, name: 'Ethics', workload: 20 });
  // Attached in the reverse of their display order.
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, {
    modules: [
      { module_uuid: ethics.uuid },
      { module_uuid: streaming.uuid, course_module_group_uuid: advanced.uuid },
      { module_uuid: sql.uuid, course_module_group_uuid: core.uuid },
    ],
  });
  const student = await make.student({ name: 'Ana Souza', email });
  const file = await uploadFile(api, await diplomaPdf(`Diploma of ${email}`), 'diploma.pdf');
  const response = await api.rest('POST', '/certificates', {
    institution_uuid: institutionUuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    file_uuid: file,
    finish: true,
    ...certificate,
  });
  if (response.status !== 201) throw new Error(`issue answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { course, student, certificate: response.body.data };
}

const assertionUrl = (certificateUuid: string) => `${base}/ob/v2/assertions/${certificateUuid}`;

async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function unbake(image: Buffer, type: string) {
  const response = await fetch(`${base}/api/v1/badges/unbake`, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(image) });
  return { status: response.status, body: (await response.json()) as any };
}

describe('a third-party verifier following the hosted documents', () => {
  let institution: Record<string, any>;
  let course: Record<string, any>;
  let certificate: Record<string, any>;
  const email = 'Ana.Souza@Example.org';

  beforeAll(async () => {
    institution = await badgedInstitution(acme, { bytes: await badgePng('walk'), name: 'badge.png' });
    ({ course, certificate } = await issued(acme, institution.uuid, email, { expires_at: '2035-06-30' }));
  });

  it('lists the course’s modules in display order in both badge versions: by group, then the ungrouped ones', async () => {
    const badge = (await getJson(`${base}/ob/v2/badges/${course.uuid}`)).body;
    const credential = (await getJson(`${base}/ob/v3/credentials/${certificate.uuid}`)).body;
    const listed = '**Core**\n\n- SQL Foundations (60 h)\n\n**Advanced**\n\n- Streaming (40 h)\n\n**Other modules**\n\n- Ethics (20 h)';
    expect(badge.criteria.narrative.endsWith(listed)).toBe(true);
    expect(credential.credentialSubject.achievement.criteria.narrative.endsWith(listed)).toBe(true);
  });

  it('verifies the assertion from its id: context, type, badge class, issuer, allowed origin, recipient hash, revocation list, expiry', async () => {
    expect(await verifyHostedAssertion(assertionUrl(certificate.uuid), email)).toEqual({ status: 'valid' });

    const assertion = (await getJson(assertionUrl(certificate.uuid))).body;
    expect(assertion).toEqual({
      '@context': OB2_CONTEXT,
      type: 'Assertion',
      id: assertionUrl(certificate.uuid),
      recipient: { type: 'email', hashed: true, salt: expect.stringMatching(/^[0-9a-f]{32}$/), identity: expect.stringMatching(/^sha256\$[0-9a-f]{64}$/) },
      badge: `${base}/ob/v2/badges/${course.uuid}`,
      verification: { type: 'hosted' },
      issuedOn: certificate.issued_at,
      expires: '2035-06-30T00:00:00.000000Z',
      evidence: certificate.public_verification_url,
      image: `${assertionUrl(certificate.uuid)}/image.png`,
    });
    // The salt is drawn once: every later read (and a stranger's email) tells the same story.
    expect((await getJson(assertionUrl(certificate.uuid))).body.recipient).toEqual(assertion.recipient);
    expect(await verifyHostedAssertion(assertionUrl(certificate.uuid), 'someone.else@example.org')).toEqual({
      status: 'invalid',
      problem: 'recipient does not match',
    });

    const badge = (await getJson(assertion.badge)).body;
    expect(badge).toMatchObject({
      type: 'BadgeClass',
      name: 'Data Engineering',
      description: 'Pipelines, warehouses and streams.',
      issuer: `${base}/ob/v2/issuers/${institution.uuid}`,
    });
    expect(badge.image).toBe(`${base}/api/v1/files/${institution.badge_image_uuid}/download`);
    expect(badge.criteria.narrative).toContain('360 hours');
    expect(badge.criteria.narrative).toMatch(/\*\*Core\*\*\n\n- SQL Foundations \(60 h\)/);
    const issuer = (await getJson(badge.issuer)).body;
    expect(issuer).toEqual({
      '@context': OB2_CONTEXT,
      type: 'Issuer',
      id: badge.issuer,
      name: institution.name,
      url: 'https://uni.example',
      email: institution.email,
      image: badge.image,
      revocationList: `${badge.issuer}/revocations`,
      // validator-core compares the assertion id's authority, port included.
      verification: { type: 'VerificationObject', allowedOrigins: [new URL(base).host] },
    });
    expect(issuer.verification.allowedOrigins[0]).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await download(badge.image)).status).toBe(200);
  });

  it('extracts the same assertion from the baked PNG: one uncompressed iTXt before IEND, a PNG still decodable', async () => {
    const hosted = (await getJson(assertionUrl(certificate.uuid))).body;
    const baked = await download(hosted.image);
    expect([baked.status, baked.headers.get('content-type')]).toEqual([200, 'image/png']);
    const chunks = pngChunks(baked.bytes);
    const badgeChunks = chunks.filter(isOpenBadgesText);
    expect(badgeChunks).toHaveLength(1);
    expect(chunks.at(-1)!.type).toBe('IEND');
    expect(chunks.at(-2)).toBe(badgeChunks[0]);
    const { compressed, text } = iTXtText(badgeChunks[0]!);
    expect(compressed).toBe(false);
    expect(JSON.parse(text)).toEqual(hosted);
    const decoded = PngImage.sync.read(baked.bytes);
    expect(decoded.width).toBeGreaterThan(0);

    const verdict = await unbake(baked.bytes, 'image/png');
    expect(verdict.body.data).toMatchObject({ image_type: 'png', assertion_id: hosted.id, status: 'valid', matches_hosted: true, mismatched_properties: [] });
  });

  it('ends the same walk in "revoked" with the reason after a revoke, at once and on every server process', async () => {
    const other = await startTestService({ PUBLIC_BASE_URL: base }, service.database);
    try {
      const revocations = `${base}/ob/v2/issuers/${institution.uuid}/revocations`;
      const onOther = (url: string) => getJson(url.replace(base, other.url));
      expect((await onOther(revocations)).body.revokedAssertions).toEqual([]);

      const { certificate: doomed } = await issued(acme, institution.uuid, 'doomed@example.org');
      expect(await verifyHostedAssertion(assertionUrl(doomed.uuid), 'doomed@example.org')).toEqual({ status: 'valid' });
      expect((await acme.rest('POST', `/certificates/${doomed.uuid}/revoke`, { reason: 'Awarded in error' })).status).toBe(200);

      expect(await verifyHostedAssertion(assertionUrl(doomed.uuid), 'doomed@example.org')).toEqual({ status: 'revoked', reason: 'Awarded in error' });
      const gone = await getJson(assertionUrl(doomed.uuid));
      expect([gone.status, gone.body]).toEqual([
        410,
        { '@context': OB2_CONTEXT, id: assertionUrl(doomed.uuid), revoked: true, revocationReason: 'Awarded in error' },
      ]);
      const list = (await onOther(revocations)).body;
      expect(list).toEqual({
        '@context': OB2_CONTEXT,
        type: 'RevocationList',
        id: revocations,
        issuer: `${base}/ob/v2/issuers/${institution.uuid}`,
        revokedAssertions: [{ id: assertionUrl(doomed.uuid), uid: doomed.uuid, revocationReason: 'Awarded in error' }],
      });
      expect((await onOther(assertionUrl(doomed.uuid))).status).toBe(410);
      expect((await download(`${assertionUrl(doomed.uuid)}/image.png`)).status).toBe(410);
      // The untouched certificate of the same issuer still verifies.
      expect(await verifyHostedAssertion(assertionUrl(certificate.uuid), email)).toEqual({ status: 'valid' });
    } finally {
      await other.stop();
    }
  });

  it('keeps answering 200 for an expired certificate, with expires in the past', async () => {
    const { certificate: lapsed } = await issued(acme, institution.uuid, 'lapsed@example.org', { expires_at: '2034-01-01' });
    await service.orm.em.getConnection().execute(`update certificates set expires_at = now() - interval '1 day' where uuid = ?`, [lapsed.uuid]);
    const hosted = await getJson(assertionUrl(lapsed.uuid));
    expect(hosted.status).toBe(200);
    expect(new Date(hosted.body.expires).getTime()).toBeLessThan(Date.now());
    expect(await verifyHostedAssertion(assertionUrl(lapsed.uuid), 'lapsed@example.org')).toEqual({ status: 'expired', expires: hosted.body.expires });
  });

  it('serves the same documents over REST and GraphQL, tenant-scoped: a foreign uuid is a 404', async () => {
    const hosted = (await getJson(assertionUrl(certificate.uuid))).body;
    const issuer = (await getJson(`${base}/ob/v2/issuers/${institution.uuid}`)).body;
    expect((await acme.rest('GET', `/certificates/${certificate.uuid}/badges/assertions`)).body).toEqual({ data: hosted });
    expect((await acme.rest('GET', `/institutions/${institution.uuid}/badges/issuers`)).body).toEqual({ data: issuer });
    const graphql = await acme.graphql('query($c: ID!, $i: ID!) { certificate(uuid: $c) { badgeAssertion } institution(uuid: $i) { badgeIssuer } }', {
      c: certificate.uuid,
      i: institution.uuid,
    });
    expect(graphql.body.data).toEqual({ certificate: { badgeAssertion: hosted }, institution: { badgeIssuer: issuer } });

    for (const path of [`/certificates/${certificate.uuid}/badges/assertions`, `/institutions/${institution.uuid}/badges/issuers`]) {
      expect([path, (await globex.rest('GET', path)).status]).toEqual([path, 404]);
    }
    const foreign = await globex.graphql('query($c: ID!) { certificate(uuid: $c) { badgeAssertion } }', { c: certificate.uuid });
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(foreign.body.data?.certificate ?? null).toBeNull();
  });

  it('answers ld+json by default, json when only that is asked for, with CORS, ETag and Cache-Control; HTML asks go to the verification page', async () => {
    const url = assertionUrl(certificate.uuid);
    const byDefault = await fetch(url);
    expect(byDefault.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(byDefault.headers.get('access-control-allow-origin')).toBe('*');
    expect(byDefault.headers.get('cache-control')).toBe('public, no-cache');
    expect(byDefault.headers.get('vary')).toMatch(/Accept/);
    const etag = byDefault.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const plain = await fetch(url, { headers: { accept: 'application/json' } });
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await plain.json()).toEqual(await byDefault.json());

    const revalidated = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);

    const browser = await fetch(url, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, redirect: 'manual' });
    expect([browser.status, browser.headers.get('location')]).toEqual([303, certificate.public_verification_url]);

    for (const document of [`${base}/ob/v2/issuers/${institution.uuid}/revocations`, `${base}/ob/v2/badges/${course.uuid}`]) {
      const response = await fetch(document);
      expect([document, response.headers.get('content-type'), response.headers.get('access-control-allow-origin'), !!response.headers.get('etag')]).toEqual([
        document,
        'application/ld+json; charset=utf-8',
        '*',
        true,
      ]);
    }
    const image = await fetch(`${url}/image.png`);
    expect([image.headers.get('access-control-allow-origin'), !!image.headers.get('etag'), image.headers.get('cache-control')]).toEqual([
      '*',
      true,
      'public, no-cache',
    ]);
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://verifier.example', 'access-control-request-method': 'GET' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-methods')]).toEqual([
      204,
      '*',
      'GET, HEAD',
    ]);
    const missing = await fetch(assertionUrl('0190f5c4-0000-7000-8000-000000000000'));
    expect([missing.status, missing.headers.get('access-control-allow-origin')]).toEqual([404, '*']);
  });

  it('offers the baked badge on the verification page and in the issuance e-mail', async () => {
    const page = await (await fetch(certificate.public_verification_url)).text();
    expect(page).toContain(`href="${assertionUrl(certificate.uuid)}/image.png"`);
    const [message] = await service.orm.em
      .fork()
      .getConnection()
      .execute<{ text_body: string; html_body: string }[]>(`select text_body, html_body from notifications where reference_uuid = ?`, [certificate.uuid]);
    const link = `${assertionUrl(certificate.uuid)}/image`;
    expect(message!.text_body).toContain(`\n${link}\n`);
    expect(message!.html_body).toContain(`href="${link}"`);
    const followed = await fetch(link, { redirect: 'manual' });
    expect([followed.status, followed.headers.get('location')]).toEqual([302, `${link}.png`]);
  });
});

describe('baked SVG badges', () => {
  it('bakes the namespace and one assertion element holding the hosted JSON in CDATA, right after the svg start tag', async () => {
    const institution = await badgedInstitution(acme, { bytes: Buffer.from(BADGE_SVG), name: 'badge.svg' });
    const { certificate } = await issued(acme, institution.uuid, 'svg@example.org');
    const hosted = (await getJson(assertionUrl(certificate.uuid))).body;
    expect(hosted.image).toBe(`${assertionUrl(certificate.uuid)}/image.svg`);
    expect((await download(`${assertionUrl(certificate.uuid)}/image.png`)).status).toBe(404);

    const baked = await download(hosted.image);
    expect([baked.status, baked.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    const svg = baked.bytes.toString('utf8');
    expect(svg).toContain('<![CDATA[');
    const found = svgAssertion(svg);
    expect(found).toMatchObject({ namespace: 'http://openbadges.org', verify: hosted.id, count: 1, firstInRoot: true });
    expect(JSON.parse(found.json)).toEqual(hosted);
    // The rest of the image is untouched.
    expect(svg).toContain('<circle cx="32" cy="32" r="30" fill="#1f4fd1"/>');

    expect((await unbake(baked.bytes, 'image/svg+xml')).body.data).toMatchObject({ image_type: 'svg', status: 'valid', matches_hosted: true });
  });
});

describe('re-baking and unbaking', () => {
  it('replaces an openbadges chunk or element already in the badge image, never adds a second', async () => {
    const first = await badgedInstitution(acme, { bytes: await badgePng('first'), name: 'badge.png' });
    const { certificate: earlier } = await issued(acme, first.uuid, 'earlier@example.org');
    const bakedOnce = await download(`${assertionUrl(earlier.uuid)}/image.png`);

    // A second institution whose badge image is itself an already baked badge.
    const second = await badgedInstitution(acme, { bytes: bakedOnce.bytes, name: 'rebaked.png' });
    const { certificate: later } = await issued(acme, second.uuid, 'later@example.org');
    const bakedTwice = await download(`${assertionUrl(later.uuid)}/image.png`);
    const badgeChunks = pngChunks(bakedTwice.bytes).filter(isOpenBadgesText);
    expect(badgeChunks).toHaveLength(1);
    expect(JSON.parse(iTXtText(badgeChunks[0]!).text).id).toBe(assertionUrl(later.uuid));

    const svgFirst = await badgedInstitution(acme, { bytes: Buffer.from(BADGE_SVG), name: 'badge.svg' });
    const { certificate: svgEarlier } = await issued(acme, svgFirst.uuid, 'svg-earlier@example.org');
    const svgOnce = await download(`${assertionUrl(svgEarlier.uuid)}/image.svg`);
    const svgSecond = await badgedInstitution(acme, { bytes: svgOnce.bytes, name: 'rebaked.svg' });
    const { certificate: svgLater } = await issued(acme, svgSecond.uuid, 'svg-later@example.org');
    const svgTwice = svgAssertion((await download(`${assertionUrl(svgLater.uuid)}/image.svg`)).bytes.toString('utf8'));
    expect([svgTwice.count, svgTwice.verify, JSON.parse(svgTwice.json).id]).toEqual([1, assertionUrl(svgLater.uuid), assertionUrl(svgLater.uuid)]);
  });

  it('reports a baked recipient that differs from the hosted assertion, in PNG and SVG', async () => {
    const institution = await badgedInstitution(acme, { bytes: await badgePng('tamper'), name: 'badge.png' });
    const { certificate } = await issued(acme, institution.uuid, 'owner@example.org');
    const baked = await download(`${assertionUrl(certificate.uuid)}/image.png`);
    const chunks = pngChunks(baked.bytes);
    const index = chunks.findIndex(isOpenBadgesText);
    const claim = JSON.parse(iTXtText(chunks[index]!).text);
    claim.recipient = { type: 'email', hashed: false, identity: 'thief@example.org' };
    chunks[index] = iTXtChunk(JSON.stringify(claim));
    const tampered = await unbake(encodePng(chunks), 'image/png');
    expect(tampered.status).toBe(200);
    expect(tampered.body.data).toMatchObject({
      status: 'valid',
      matches_hosted: false,
      mismatched_properties: ['recipient'],
      assertion_id: assertionUrl(certificate.uuid),
    });
    expect(tampered.body.data.hosted_assertion.recipient.identity).not.toBe('thief@example.org');

    const svgInstitution = await badgedInstitution(acme, { bytes: Buffer.from(BADGE_SVG), name: 'badge.svg' });
    const { certificate: svgCertificate } = await issued(acme, svgInstitution.uuid, 'svg-owner@example.org');
    const svg = (await download(`${assertionUrl(svgCertificate.uuid)}/image.svg`)).bytes.toString('utf8');
    const forged = svg.replace(/"identity":"sha256\$[0-9a-f]+"/, `"identity":"sha256$${'0'.repeat(64)}"`);
    expect(forged).not.toBe(svg);
    expect((await unbake(Buffer.from(forged), 'image/svg+xml')).body.data).toMatchObject({ matches_hosted: false, mismatched_properties: ['recipient'] });
  });

  it('answers hostile or unrelated images with a clear 4xx', async () => {
    const plainPng = await badgePng('plain');
    const notBaked = await unbake(plainPng, 'image/png');
    expect([notBaked.status, notBaked.body.errors.file]).toEqual([422, ['No Open Badges assertion is baked into this image.']]);

    // A chunk that claims four gigabytes: refused before anything is allocated for it.
    const forged = Buffer.from(plainPng);
    forged.writeUInt32BE(0xfffffff0, 8);
    expect((await unbake(forged, 'image/png')).status).toBe(422);

    expect((await unbake(Buffer.from('%PDF-1.7\n'), 'application/octet-stream')).status).toBe(415);
    expect((await unbake(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><unclosed></svg>'), 'image/svg+xml')).status).toBe(422);
    expect((await unbake(Buffer.alloc(3 * 1024 * 1024, 1), 'image/png')).status).toBe(413);

    const elsewhere = encodePng([
      ...pngChunks(plainPng).slice(0, -1),
      iTXtChunk(JSON.stringify({ id: 'https://other.example/a/1' })),
      pngChunks(plainPng).at(-1)!,
    ]);
    expect((await unbake(elsewhere, 'image/png')).body.data).toMatchObject({ status: 'unknown', hosted_assertion: null, matches_hosted: null });
  });
});

describe('badges disabled, drafts and unknown uuids', () => {
  it('answers 404 on every badge URL, public and REST, and null in GraphQL', async () => {
    const institution = await factories(acme).institution({ name: 'No Badges U' });
    const { course, certificate } = await issued(acme, institution.uuid, 'plain@example.org');
    const draftCourse = await factories(acme).course({ institution_uuid: institution.uuid });

    const publicUrls = (institutionUuid: string, courseUuid: string, certificateUuid: string) => [
      `${base}/ob/v2/issuers/${institutionUuid}`,
      `${base}/ob/v2/issuers/${institutionUuid}/revocations`,
      `${base}/ob/v2/badges/${courseUuid}`,
      assertionUrl(certificateUuid),
      `${assertionUrl(certificateUuid)}/image.png`,
      `${assertionUrl(certificateUuid)}/image.svg`,
      `${assertionUrl(certificateUuid)}/image`,
    ];
    const statuses = async (urls: string[]) => Promise.all(urls.map(async (url) => [url, (await fetch(url)).status]));
    const all404 = (urls: string[]) => urls.map((url) => [url, 404]);

    const off = publicUrls(institution.uuid, course.uuid, certificate.uuid);
    expect(await statuses(off)).toEqual(all404(off));
    for (const path of [`/certificates/${certificate.uuid}/badges/assertions`, `/institutions/${institution.uuid}/badges/issuers`]) {
      expect([path, (await acme.rest('GET', path)).status]).toEqual([path, 404]);
    }
    const graphql = await acme.graphql('query($c: ID!, $i: ID!) { certificate(uuid: $c) { badgeAssertion } institution(uuid: $i) { badgeIssuer } }', {
      c: certificate.uuid,
      i: institution.uuid,
    });
    expect(graphql.body.data).toEqual({ certificate: { badgeAssertion: null }, institution: { badgeIssuer: null } });
    const page = await (await fetch(certificate.public_verification_url)).text();
    expect(page).not.toContain('Open Badge');

    // Badges on: a draft of the same institution still has no assertion.
    const image = await uploadFile(acme, await badgePng('later'), 'badge.png');
    const enabled = { is_badges_enabled: true, badge_image_uuid: image, email: 'registrar@later.example' };
    expect((await acme.rest('PATCH', `/institutions/${institution.uuid}`, enabled)).status).toBe(200);
    expect((await fetch(`${base}/ob/v2/issuers/${institution.uuid}`)).status).toBe(200);
    expect((await fetch(assertionUrl(certificate.uuid))).status).toBe(200);
    const student = await factories(acme).student();
    const draft = await acme.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: draftCourse.uuid,
      student_uuid: student.uuid,
      file_uuid: (await uploadPdf(acme)).uuid,
    });
    expect(draft.body.data.status).toBe('draft');
    expect((await fetch(assertionUrl(draft.body.data.uuid))).status).toBe(404);
    expect((await acme.rest('GET', `/certificates/${draft.body.data.uuid}/badges/assertions`)).status).toBe(404);
    const draftGraphql = await acme.graphql('query($c: ID!) { certificate(uuid: $c) { badgeAssertion } }', { c: draft.body.data.uuid });
    expect(draftGraphql.body.data.certificate.badgeAssertion).toBeNull();

    // Off again: everything disappears at once.
    expect((await acme.rest('PATCH', `/institutions/${institution.uuid}`, { is_badges_enabled: false })).status).toBe(200);
    expect(await statuses(off)).toEqual(all404(off));

    const unknown = publicUrls('0190f5c4-0000-7000-8000-000000000001', '0190f5c4-0000-7000-8000-000000000002', 'not-a-uuid');
    expect(await statuses(unknown)).toEqual(all404(unknown));
  });

  it('answers a deleted certificate publicly as withdrawn (410, revoked) and not at all to its tenant (404)', async () => {
    const institution = await badgedInstitution(acme, { bytes: await badgePng('deleted'), name: 'badge.png' });
    const { certificate } = await issued(acme, institution.uuid, 'gone@example.org');
    expect((await fetch(assertionUrl(certificate.uuid))).status).toBe(200);
    await service.orm.em.getConnection().execute(`update certificates set deleted_at = now() where uuid = ?`, [certificate.uuid]);
    expect(await getJson(assertionUrl(certificate.uuid))).toMatchObject({ status: 410, body: { revoked: true, revocationReason: 'Withdrawn by the issuer.' } });
    expect((await acme.rest('GET', `/certificates/${certificate.uuid}/badges/assertions`)).status).toBe(404);
  });
});

describe('the institution’s contact e-mail, the Open Badges issuer email', () => {
  it('is required while badges are enabled and must be an e-mail, over REST and GraphQL', async () => {
    const image = await uploadFile(acme, await badgePng('email'), 'badge.png');
    const missing = await acme.rest('POST', '/institutions', { name: 'No Contact', country: 'BR', is_badges_enabled: true, badge_image_uuid: image });
    expect([missing.status, missing.body.errors]).toEqual([422, { email: ['The email field is required when badges are enabled.'] }]);
    const malformed = await acme.rest('POST', '/institutions', {
      name: 'Bad Contact',
      country: 'BR',
      email: 'registrar-at-uni',
      is_badges_enabled: true,
      badge_image_uuid: image,
    });
    expect([malformed.status, malformed.body.errors]).toEqual([422, { email: ['The email field must be a valid email address.'] }]);

    const plain = await factories(acme).institution();
    expect(plain.email).toBeNull();
    const graphql = await acme.graphql(
      'mutation($uuid: ID!, $image: ID!) { updateInstitution(uuid: $uuid, input: { isBadgesEnabled: true, badgeImageUuid: $image }) { uuid } }',
      {
        uuid: plain.uuid,
        image,
      },
    );
    expect(graphql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { email: ['The email field is required when badges are enabled.'] },
    });
    const enabled = await acme.graphql(
      'mutation($uuid: ID!, $image: ID!) { updateInstitution(uuid: $uuid, input: { isBadgesEnabled: true, badgeImageUuid: $image, email: "registrar@uni.example" }) { email isBadgesEnabled } }',
      { uuid: plain.uuid, image },
    );
    expect(enabled.body.data.updateInstitution).toEqual({ email: 'registrar@uni.example', isBadgesEnabled: true });
    expect((await getJson(`${base}/ob/v2/issuers/${plain.uuid}`)).body.email).toBe('registrar@uni.example');
    expect((await acme.rest('GET', `/institutions/${plain.uuid}`)).body.data.email).toBe('registrar@uni.example');
  });

  it('is asked for at issuance from an institution that enabled badges before it existed; its badges issued so far stay served', async () => {
    const institution = await badgedInstitution(acme, { bytes: await badgePng('legacy'), name: 'badge.png' });
    const { course, certificate } = await issued(acme, institution.uuid, 'before-email@example.org');
    // As the migration leaves such an institution: badges on, no e-mail.
    await service.orm.em.getConnection().execute(`update institutions set email = null where uuid = ?`, [institution.uuid]);

    const issuer = await getJson(`${base}/ob/v2/issuers/${institution.uuid}`);
    expect([issuer.status, issuer.body.email]).toEqual([200, undefined]);
    expect((await getJson(assertionUrl(certificate.uuid))).status).toBe(200);

    const student = await factories(acme).student();
    const diploma = async () => uploadFile(acme, await diplomaPdf(`Diploma ${Math.random()}`), 'diploma.pdf');
    const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: await diploma(), finish: true };
    const refused = await acme.rest('POST', '/certificates', body);
    expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ['institution_uuid']]);
    expect(refused.body.errors.institution_uuid[0]).toMatch(/no email/);

    expect((await acme.rest('PATCH', `/institutions/${institution.uuid}`, { email: 'registrar@legacy.example' })).status).toBe(200);
    const again = await acme.rest('POST', '/certificates', { ...body, file_uuid: await diploma() });
    expect([again.status, again.body.errors]).toEqual([201, undefined]);
    expect((await getJson(`${base}/ob/v2/issuers/${institution.uuid}`)).body.email).toBe('registrar@legacy.example');
  });
});

describe('cross-origin reads of every public document', () => {
  it('answers Access-Control-Allow-Origin: * and a preflight on Open Badges 2.0 and 3.0 documents, images and the badge image download', async () => {
    const institution = await badgedInstitution(acme, { bytes: await badgePng('cors'), name: 'badge.png' });
    const { course, certificate } = await issued(acme, institution.uuid, 'cors@example.org');
    const credential = (await acme.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data;
    const documents = [
      `${base}/ob/v2/issuers/${institution.uuid}`,
      `${base}/ob/v2/issuers/${institution.uuid}/revocations`,
      `${base}/ob/v2/badges/${course.uuid}`,
      assertionUrl(certificate.uuid),
      `${assertionUrl(certificate.uuid)}/image.png`,
      credential.id,
      `${credential.id}/image.png`,
      `${base}/ob/v3/issuers/${institution.uuid}`,
      `${base}/ob/v3/issuers/${institution.uuid}/did.json`,
      credential.credentialStatus.statusListCredential,
      credential.credentialSubject.achievement.id,
      `${base}/api/v1/files/${institution.badge_image_uuid}/download`,
    ];
    for (const url of documents) {
      const read = await fetch(url, { headers: { origin: 'https://wallet.example', accept: 'application/ld+json' } });
      expect([url, read.status, read.headers.get('access-control-allow-origin')]).toEqual([url, 200, '*']);
      expect(read.headers.get('access-control-expose-headers')).toContain('ETag');
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://wallet.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept, if-none-match' },
      });
      expect([
        url,
        preflight.status,
        preflight.headers.get('access-control-allow-origin'),
        preflight.headers.get('access-control-allow-methods'),
        preflight.headers.get('access-control-allow-headers'),
      ]).toEqual([url, 204, '*', 'GET, HEAD', 'Accept, Accept-Language, If-None-Match']);
    }
    // What does not exist says so readably too.
    const missing = await fetch(`${base}/ob/v3/credentials/0190f5c4-0000-7000-8000-000000000000`, { headers: { origin: 'https://wallet.example' } });
    expect([missing.status, missing.headers.get('access-control-allow-origin')]).toEqual([404, '*']);
    // A plain OPTIONS (no preflight) still answers Allow.
    const plain = await fetch(assertionUrl(certificate.uuid), { method: 'OPTIONS' });
    expect([plain.ok, plain.headers.get('allow'), plain.headers.get('access-control-allow-methods')]).toEqual([true, 'GET, HEAD', null]);
    // The authenticated API keeps its own policy (none configured here).
    expect(
      (await fetch(`${base}/api/v1/institutions`, { headers: { origin: 'https://wallet.example' } })).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });
});
