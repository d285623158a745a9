import { jest } from '@jest/globals';
import { qrPng } from './support/qr-png.js';
import { Migration20261125220000_withdrawn_status_bits } from '../src/db/migrations/Migration20261125220000_withdrawn_status_bits.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { verify as verifyPdf } from './support/issued.js';
import { freePort, getJson } from './support/open-badges.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';

/**
 * The public lifecycle rule (docs/public-lifecycle.md): one lifecycle event at a time, and what every
 * public surface answers afterwards, all in one table. Every surface is read over HTTP as a stranger would.
 */

jest.setTimeout(120_000);

let service: TestService;
let base: string;
let acme: ApiClient;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: base });
  acme = await signIn(service, 'acme');
});

afterAll(async () => {
  await service?.stop();
});

async function uploaded(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0].uuid;
}

const badgePng = (label: string) => qrPng(`badge ${label}`);

async function fetched(url: string, init?: RequestInit): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function postJson(path: string, body: Uint8Array | string, type: string) {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': type }, body: body as BodyInit });
  return { status: response.status, body: (await response.json()) as any };
}

/** A badge-issuing institution with one issued certificate on a student's public portfolio page, and what a holder keeps of it. */
async function world(label: string) {
  const make = factories(acme);
  const image = await uploaded(acme, await badgePng(label), 'badge.png');
  const institution = await make.institution({ is_badges_enabled: true, badge_image_uuid: image, website: 'https://uni.example' });
  const course = await make.course({ institution_uuid: institution.uuid, name: `Course ${label}` });
  const student = await make.student({ email: `${label}@example.org` });
  const certificate = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid });
  const page = await make.page(student.uuid, { is_public: true });
  const item = await acme.rest('POST', `/students/${student.uuid}/pages/${page.uuid}/items`, { certificate_uuid: certificate.uuid });
  if (item.status !== 201) throw new Error(`portfolio item answered ${item.status}`);
  const signedFile = certificate.files.find((file: { type: string }) => file.type === 'certificate');
  const kept = {
    signedPdf: (await fetched(`${base}/api/v1/files/${signedFile.uuid}/download`)).bytes,
    credential: (await acme.rest('GET', `/certificates/${certificate.uuid}/badges/credentials`)).body.data,
    bakedAssertion: (await fetched(`${base}/ob/v2/assertions/${certificate.uuid}/image.png`)).bytes,
  };
  return { institution, course, certificate, page, kept };
}

type World = Awaited<ReturnType<typeof world>>;

/** What each public surface answers about the world's certificate now. */
async function publicSurfaces({ institution, course, certificate, page, kept }: World) {
  const c = certificate.uuid;
  const apiFacts = await getJson(`${base}/api/v1/verify/${c}`);
  const assertion = await getJson(`${base}/ob/v2/assertions/${c}`);
  const badgeVerify = await postJson('/api/v1/badges/verify', JSON.stringify(kept.credential), 'application/json');
  const unbaked = await postJson('/api/v1/badges/unbake', kept.bakedAssertion, 'image/png');
  const portfolio = await fetch(`${base}/p/acme/${page.slug}`).then((response) => response.text());
  return {
    verificationPage: (await fetched(`${base}/verify/${c}`, { headers: { accept: 'text/html' } })).status,
    verificationApi: [apiFacts.status, apiFacts.body?.data?.status ?? apiFacts.body?.reason],
    pdfCheck: (await verifyPdf(base, kept.signedPdf)).body.data.verdict,
    ob2Assertion: [assertion.status, assertion.body?.revoked ?? null],
    ob2BakedImage: (await fetched(`${base}/ob/v2/assertions/${c}/image.png`)).status,
    ob2BadgeClass: (await fetched(`${base}/ob/v2/badges/${course.uuid}`)).status,
    ob2Issuer: (await fetched(`${base}/ob/v2/issuers/${institution.uuid}`, { headers: { accept: 'application/ld+json' } })).status,
    ob3Credential: (await fetched(`${base}/ob/v3/credentials/${c}`)).status,
    ob3BakedImage: (await fetched(`${base}/ob/v3/credentials/${c}/image.png`)).status,
    ob3Profile: (await fetched(`${base}/ob/v3/issuers/${institution.uuid}`)).status,
    ob3Verify: [badgeVerify.body.data.verified, badgeVerify.body.data.checks.status.revoked],
    unbake: unbaked.body.data.status,
    portfolioItem: portfolio.includes(`/verify/${c}`),
  };
}

const EVENTS: Record<string, (world: World) => Promise<unknown>> = {
  'nothing happens': async () => undefined,
  'the certificate is deleted': ({ certificate }) => acme.rest('DELETE', `/certificates/${certificate.uuid}`),
  'the certificate is revoked': ({ certificate }) => acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error' }),
  'the institution is deleted': ({ institution }) => acme.rest('DELETE', `/institutions/${institution.uuid}`),
  'badges are turned off': ({ institution }) => acme.rest('PATCH', `/institutions/${institution.uuid}`, { is_badges_enabled: false }),
  'the course is deleted': ({ course }) => acme.rest('DELETE', `/courses/${course.uuid}`),
};

type Answers = Record<string, unknown>;

const valid: Answers = {
  verificationPage: 200,
  verificationApi: [200, 'valid'],
  pdfCheck: 'authentic',
  ob2Assertion: [200, null],
  ob2BakedImage: 200,
  ob2BadgeClass: 200,
  ob2Issuer: 200,
  ob3Credential: 200,
  ob3BakedImage: 200,
  ob3Profile: 200,
  ob3Verify: [true, false],
  unbake: 'valid',
  portfolioItem: true,
};

/** Deleting the certificate or its institution withdraws it: every surface says so at once. */
const withdrawn: Answers = {
  verificationPage: 410,
  verificationApi: [410, 'CERTIFICATE_WITHDRAWN'],
  pdfCheck: 'not_issued_here',
  ob2Assertion: [410, true],
  ob2BakedImage: 410,
  ob3Credential: 410,
  ob3BakedImage: 410,
  ob3Verify: [false, true],
  unbake: 'withdrawn',
  portfolioItem: false,
};

const EXPECTED: Record<keyof typeof EVENTS, Answers> = {
  'nothing happens': valid,
  'the certificate is deleted': { ...valid, ...withdrawn },
  'the institution is deleted': { ...valid, ...withdrawn, ob2BadgeClass: 410, ob2Issuer: 410, ob3Profile: 410 },
  // Revoked everywhere; the documents stay fetchable and say so (an OB 3.0 credential through its status list).
  'the certificate is revoked': {
    ...valid,
    verificationApi: [200, 'revoked'],
    ob2Assertion: [410, true],
    ob2BakedImage: 410,
    ob3Verify: [false, true],
    unbake: 'revoked',
  },
  // Badge documents stop being served; nothing else changes, and the status list keeps answering.
  'badges are turned off': {
    ...valid,
    ob2Assertion: [404, null],
    ob2BakedImage: 404,
    ob2BadgeClass: 404,
    ob2Issuer: 404,
    ob3Credential: 404,
    ob3BakedImage: 404,
    ob3Profile: 404,
    unbake: 'unknown',
  },
  // A course deletion withdraws nothing issued: its badge class stays served for the assertions naming it.
  'the course is deleted': valid,
};

describe('one lifecycle rule on every public surface', () => {
  it.each(Object.keys(EVENTS))('answers as the rule says when %s', async (event) => {
    const target = await world(event.replace(/\W+/g, '-'));
    expect(await publicSurfaces(target)).toEqual(valid);
    const response = (await EVENTS[event]!(target)) as { status: number } | undefined;
    if (response) expect(response.status).toBeLessThan(300);
    expect(await publicSurfaces(target)).toEqual(EXPECTED[event]);
  });
});

describe('a withdrawn certificate tells nothing but that', () => {
  it('answers 410 without the recipient, course or documents, and its assertion is listed as revoked', async () => {
    const target = await world('privacy');
    expect((await acme.rest('DELETE', `/certificates/${target.certificate.uuid}`)).status).toBe(204);
    const api = await getJson(`${base}/api/v1/verify/${target.certificate.uuid}`);
    expect(api).toMatchObject({ status: 410, body: { message: 'The certificate was withdrawn by its issuer.', reason: 'CERTIFICATE_WITHDRAWN' } });
    const page = await fetch(`${base}/verify/${target.certificate.uuid}`).then((response) => response.text());
    expect(page).toContain('Certificate withdrawn');
    expect(page).not.toContain(target.course.name);
    const revocations = await getJson(`${base}/ob/v2/issuers/${target.institution.uuid}/revocations`);
    expect(revocations.body.revokedAssertions).toEqual([
      { id: `${base}/ob/v2/assertions/${target.certificate.uuid}`, uid: target.certificate.uuid, revocationReason: 'Withdrawn by the issuer.' },
    ]);
  });

  it('serves the badge class of a deleted course only while something issued names it', async () => {
    const target = await world('course-gone');
    const unawarded = await factories(acme).course({ institution_uuid: target.institution.uuid });
    for (const course of [target.course, unawarded]) expect((await acme.rest('DELETE', `/courses/${course.uuid}`)).status).toBe(204);
    expect((await fetched(`${base}/ob/v2/badges/${target.course.uuid}`)).status).toBe(200);
    expect((await fetched(`${base}/ob/v2/badges/${unawarded.uuid}`)).status).toBe(404);
    expect((await acme.rest('DELETE', `/certificates/${target.certificate.uuid}`)).status).toBe(204);
    expect((await fetched(`${base}/ob/v2/badges/${target.course.uuid}`)).status).toBe(404);
  });
});

describe('certificates withdrawn before the rule', () => {
  it('read as revoked in their status list once the migration has run', async () => {
    const deletedEarlier = await world('deleted-earlier');
    const institutionDeletedEarlier = await world('institution-deleted-earlier');
    // As deletions were recorded before: the row deleted, its status bit left alone.
    const sql = (query: string, params: unknown[]) => service.orm.em.getConnection().execute(query, params);
    await sql('update certificates set deleted_at = now() where uuid = ?', [deletedEarlier.certificate.uuid]);
    await sql('update institutions set deleted_at = now() where uuid = ?', [institutionDeletedEarlier.institution.uuid]);
    const revoked = async ({ kept }: World) =>
      (await postJson('/api/v1/badges/verify', JSON.stringify(kept.credential), 'application/json')).body.data.checks.status.revoked;
    expect([await revoked(deletedEarlier), await revoked(institutionDeletedEarlier)]).toEqual([false, false]);

    const migration = new Migration20261125220000_withdrawn_status_bits(service.orm.em.getDriver(), service.orm.config);
    await migration.up();
    for (const query of migration.getQueries()) await sql(query as string, []);
    expect([await revoked(deletedEarlier), await revoked(institutionDeletedEarlier)]).toEqual([true, true]);
  });
});

describe('files in use', () => {
  it('refuses to delete an institution’s badge image (409) until the institution lets go of it', async () => {
    const image = await uploaded(acme, await badgePng('held'), 'held.png');
    const institution = await factories(acme).institution({ is_badges_enabled: true, badge_image_uuid: image });
    const refused = await acme.rest('DELETE', `/files/${image}`);
    expect([refused.status, refused.body.message]).toEqual([
      409,
      `The file ${image} is the badge image of institution ${institution.uuid} and cannot be deleted; give the institution another badge image (or delete it) first.`,
    ]);
    for (const [document, variables] of [
      ['mutation($uuid: ID!) { deleteFile(uuid: $uuid) }', { uuid: image }],
      ['mutation($uuids: [ID!]!) { deleteFiles(uuids: $uuids) }', { uuids: [image] }],
    ] as const) {
      const graphql = await acme.graphql(document, variables);
      expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
    }
    expect((await fetched(`${base}/ob/v2/issuers/${institution.uuid}`, { headers: { accept: 'application/ld+json' } })).status).toBe(200);

    const other = await uploaded(acme, await badgePng('other'), 'other.png');
    expect((await acme.rest('PATCH', `/institutions/${institution.uuid}`, { badge_image_uuid: other })).status).toBe(200);
    expect((await acme.rest('DELETE', `/files/${image}`)).status).toBe(204);
    // A deleted institution holds nothing.
    expect((await acme.rest('DELETE', `/institutions/${institution.uuid}`)).status).toBe(204);
    expect((await acme.rest('DELETE', `/files/${other}`)).status).toBe(204);
  });

  it('never lets a deletion and an institution naming the file as its badge image both succeed', async () => {
    const institution = await factories(acme).institution();
    for (let round = 0; round < 8; round++) {
      const image = await uploaded(acme, await badgePng(`race ${round}`), 'race.png');
      const [deleted, named] = await Promise.all([
        acme.rest('DELETE', `/files/${image}`),
        acme.rest('PATCH', `/institutions/${institution.uuid}`, { badge_image_uuid: image }),
      ]);
      // One of them wins: the file deleted and the institution refused (422), or the image named and the deletion refused (409).
      expect([
        [204, 422],
        [409, 200],
      ]).toContainEqual([deleted.status, named.status]);
    }
  });
});
