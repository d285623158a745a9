/**
 * The public portfolio page: what loadPublicPortfolio gives the page (only live, public pages; visible
 * items in order; statuses by the certificate rules), GET /p/{tenant}/{slug}, and the statements a page
 * of 50 items costs in the loader, GraphQL and REST.
 */
import { jest } from '@jest/globals';
import { loadPublicPortfolio } from '../src/portfolios/public-portfolio.js';
import { factories, type Factories } from './support/factories.js';
import { upload } from './support/files.js';
import { svgBytes } from './support/files.js';
import { PUBLIC_BASE_URL, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(300_000);

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
let student: any;
/** Issued certificates of `student`, each of its own course: [valid, revoked, expired, hidden, badge]. */
let certificates: any[];
let badgeImage: string;

beforeAll(async () => {
  // Background jobs share the ORM and would add their polling to the statement counts.
  service = await startTestService({ NOTIFICATION_WORKER: 'off', EXPIRY_SWEEP_MS: '0', JOB_WORKER: 'off', IDEMPOTENCY_SWEEP_MS: '0' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
  student = await make.student({ name: 'Maria Oliveira', social_name: 'Mia Oliveira' });
  const institution = await make.institution({ name: 'Instituto Federal' });
  badgeImage = (await upload(acme, [[svgBytes(), 'badge.svg']])).body.data[0].uuid;
  const badged = await make.institution({ name: 'Badge Academy', is_badges_enabled: true, badge_image_uuid: badgeImage });
  const course = (name: string, institution_uuid = institution.uuid) => make.course({ institution_uuid, name });
  const issue = async (name: string, fields: Record<string, unknown> = {}, institution_uuid = institution.uuid) =>
    make.certificate({ institution_uuid, course_uuid: (await course(name, institution_uuid)).uuid, student_uuid: student.uuid, ...fields });
  certificates = [
    await issue('Valid Course'),
    await issue('Revoked Course'),
    await issue('Expired Course', { expires_at: '2034-06-30T00:00:00Z' }),
    await issue('Hidden Course'),
    await issue('Badge Course', {}, badged.uuid),
  ];
  expect((await acme.rest('POST', `/certificates/${certificates[1].uuid}/revoke`, { reason: 'Withdrawn' })).status).toBe(200);
  // Issued with a future expiry (an issue may not be born expired), then past it.
  await service.orm.em.fork().getConnection().execute(`update certificates set expires_at = '2024-06-30T00:00:00Z' where uuid = ?`, [certificates[2].uuid]);
});
afterAll(() => service.stop());

const itemsOf = (page: Record<string, any>) => `/students/${page.student.uuid}/pages/${page.uuid}/items`;
const load = (tenant: string, slug: string) => loadPublicPortfolio({ em: service.orm.em.fork(), publicBaseUrl: PUBLIC_BASE_URL }, tenant, slug);
const publicPage = (path: string) => fetch(`${service.url}${path}`);

/** A public page showing `certificates` in the given order of sort_order, the fourth hidden. */
async function showcase(fields: Record<string, unknown> = {}) {
  const page = await make.page(student.uuid, { is_public: true, bio: 'Data engineer <script>alert(1)</script> & "friends"', ...fields });
  const orders = [30, 10, 20, 5, 40];
  for (const [index, certificate] of certificates.entries()) {
    const added = await acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid, sort_order: orders[index], is_visible: index !== 3 });
    expect(added.status).toBe(201);
  }
  return page;
}

describe('loadPublicPortfolio', () => {
  it('gives the student’s display name, the bio and the visible items in sort order with their effective status', async () => {
    const page = await showcase();
    const portfolio = await load('acme', page.slug);
    expect(portfolio).toMatchObject({
      tenantSlug: 'acme',
      slug: page.slug,
      url: `${PUBLIC_BASE_URL}/p/acme/${page.slug}`,
      displayName: 'Mia Oliveira',
      bio: 'Data engineer <script>alert(1)</script> & "friends"',
    });
    expect(portfolio!.items.map((item) => [item.courseName, item.status])).toEqual([
      ['Revoked Course', 'revoked'],
      ['Expired Course', 'expired'],
      ['Valid Course', 'issued'],
      ['Badge Course', 'issued'],
    ]);
    const [revoked, expired, valid, badged] = portfolio!.items;
    expect(valid).toEqual({
      certificateUuid: certificates[0].uuid,
      institutionName: 'Instituto Federal',
      courseName: 'Valid Course',
      issuedAt: new Date(certificates[0].issued_at),
      status: 'issued',
      expiresAt: null,
      revokedAt: null,
      verificationUrl: `${PUBLIC_BASE_URL}/verify/${certificates[0].uuid}`,
      badgeImageUrl: null,
    });
    expect(revoked!.revokedAt).toBeInstanceOf(Date);
    expect(expired!.expiresAt).toEqual(new Date('2024-06-30T00:00:00Z'));
    expect(badged).toMatchObject({ institutionName: 'Badge Academy', badgeImageUrl: `${PUBLIC_BASE_URL}/api/v1/files/${badgeImage}/download` });
    expect(portfolio!.updatedAt.getTime()).toBeGreaterThanOrEqual(new Date(page.updated_at).getTime());
  });

  it('is null unless the page is live and public, under its own tenant, with a live student', async () => {
    const hidden = await make.page(student.uuid, { is_public: false });
    expect(await load('acme', hidden.slug)).toBeNull();
    const shown = await make.page(student.uuid, { is_public: true });
    expect(await load('acme', shown.slug)).not.toBeNull();
    expect(await load('globex', shown.slug)).toBeNull();
    expect(await load('nowhere', shown.slug)).toBeNull();
    expect(await load('acme', 'no-such-page')).toBeNull();
    expect(await load('acme', shown.slug.toUpperCase())).toBeNull();
    expect(await load('acme', 'x'.repeat(500))).toBeNull();
    expect(await load('a'.repeat(500), shown.slug)).toBeNull();

    const leaving = await make.student();
    const orphan = await make.page(leaving.uuid, { is_public: true });
    expect(await load('acme', orphan.slug)).not.toBeNull();
    expect((await acme.rest('DELETE', `/students/${leaving.uuid}`)).status).toBe(204);
    expect(await load('acme', orphan.slug)).toBeNull();

    expect((await acme.rest('DELETE', `/students/${student.uuid}/pages/${shown.uuid}`)).status).toBe(204);
    expect(await load('acme', shown.slug)).toBeNull();
  });

  it('leaves out items whose certificate or institution was deleted, and shows the names of deleted courses', async () => {
    const institution = await make.institution({ name: 'Closed College' });
    const course = await make.course({ institution_uuid: institution.uuid, name: 'Closed Course' });
    const kept = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid });
    const dropped = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid });
    const page = await make.page(student.uuid, { is_public: true });
    for (const certificate of [kept, dropped]) await acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid });
    expect((await acme.rest('DELETE', `/certificates/${dropped.uuid}`)).status).toBe(204);
    expect((await acme.rest('DELETE', `/courses/${course.uuid}`)).status).toBe(204);
    const portfolio = await load('acme', page.slug);
    expect(portfolio!.items.map((item) => [item.certificateUuid, item.courseName, item.institutionName])).toEqual([
      [kept.uuid, 'Closed Course', 'Closed College'],
    ]);
    // A deleted institution withdraws its certificates (docs/public-lifecycle.md).
    expect((await acme.rest('DELETE', `/institutions/${institution.uuid}`)).status).toBe(204);
    expect((await load('acme', page.slug))!.items).toEqual([]);
  });
});

describe('GET /p/{tenant}/{slug}', () => {
  it('renders the public page without a token: escaped text, visible items in order, statuses, verification links', async () => {
    const page = await showcase();
    const response = await publicPage(`/p/acme/${page.slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<h1>Mia Oliveira</h1>');
    // preact escapes what can open markup (<, &, "); a lone > is text. The browser test proves it renders as text.
    expect(html).toContain('Data engineer &lt;script>alert(1)&lt;/script> &amp; &quot;friends&quot;');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('Hidden Course');
    const positions = ['Revoked Course', 'Expired Course', 'Valid Course', 'Badge Course'].map((name) => html.indexOf(name));
    expect(positions.every((position, index) => position > 0 && (index === 0 || position > positions[index - 1]!))).toBe(true);
    expect(html).toMatch(/Revoked Course<\/h3>.*?<strong class="badge status-badge tone-bad">Revoked<\/strong>/);
    expect(html).toMatch(/Expired Course<\/h3>.*?<strong class="badge status-badge tone-warn">Expired<\/strong>/);
    expect(html).toContain(`href="${PUBLIC_BASE_URL}/verify/${certificates[0].uuid}"`);
    expect(html).toContain(`<link rel="canonical" href="${PUBLIC_BASE_URL}/p/acme/${page.slug}"/>`);
  });

  it('answers 404 for a private, unknown, foreign-tenant or malformed page', async () => {
    const hidden = await make.page(student.uuid);
    const shown = await make.page(student.uuid, { is_public: true });
    const theirs = await factories(globex).page(undefined, { is_public: true });
    for (const path of [
      `/p/acme/${hidden.slug}`,
      '/p/acme/no-such-page',
      `/p/globex/${shown.slug}`,
      `/p/acme/${theirs.slug}`,
      '/p/acme/%2e%2e',
      `/p/acme/${'a'.repeat(300)}`,
    ]) {
      const response = await publicPage(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(await response.text()).not.toContain(student.name);
    }
    const served = await publicPage(`/p/globex/${theirs.slug}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('<h1>');
  });
});

describe('pages with many items: constant statements, a bounded size', () => {
  let small: any;
  let large: any;
  /** 101 issued certificates of the student: the first 50 are on `large`, the first 5 on `small`. */
  const issued: any[] = [];

  beforeAll(async () => {
    const institutions = [await make.institution(), await make.institution({ is_badges_enabled: true, badge_image_uuid: badgeImage })];
    const courses = await Promise.all([0, 1, 2, 3].map((index) => make.course({ institution_uuid: institutions[index % 2]!.uuid })));
    // Four at a time: a tenant's uploads in flight are budgeted (UPLOAD_BYTES_IN_FLIGHT_PER_TENANT).
    while (issued.length < 101) {
      const batch = Array.from({ length: Math.min(4, 101 - issued.length) }, (_, index) => courses[(issued.length + index) % 4]!);
      issued.push(
        ...(await Promise.all(
          batch.map((course) => make.certificate({ institution_uuid: course.institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid })),
        )),
      );
    }
    [small, large] = [await make.page(student.uuid, { is_public: true }), await make.page(student.uuid, { is_public: true })];
    for (const [page, count] of [
      [small, 5],
      [large, 50],
    ] as const) {
      for (const certificate of issued.slice(0, count))
        expect((await acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid })).status).toBe(201);
    }
  });

  async function statementsOf<T>(work: () => Promise<T>): Promise<{ count: number; result: T }> {
    service.statements.length = 0;
    const result = await work();
    return { count: service.statements.length, result };
  }

  it('loadPublicPortfolio: two statements, whatever the page holds', async () => {
    const few = await statementsOf(() => load('acme', small.slug));
    const many = await statementsOf(() => load('acme', large.slug));
    expect(few.result!.items).toHaveLength(5);
    expect(many.result!.items).toHaveLength(50);
    expect(many.result!.items.every((item) => item.courseName && item.institutionName)).toBe(true);
    expect(many.result!.items.filter((item) => item.badgeImageUrl)).toHaveLength(25);
    expect(many.count).toBe(2);
    expect(few.count).toBe(many.count);
  });

  it('GraphQL: page → items → certificate → course and institution costs the same for 5 and 50 items', async () => {
    const query = `query($uuid: ID!) { portfolioPage(uuid: $uuid) { slug student { name } items { sortOrder certificate { uuid status course { name } institution { name } } } } }`;
    const few = await statementsOf(() => acme.graphql(query, { uuid: small.uuid }));
    const many = await statementsOf(() => acme.graphql(query, { uuid: large.uuid }));
    expect(many.result.body.data.portfolioPage.items).toHaveLength(50);
    expect(many.result.body.data.portfolioPage.items.every((item: any) => item.certificate.course.name && item.certificate.institution.name)).toBe(true);
    expect(many.count).toBe(few.count);
    expect(many.count).toBeLessThanOrEqual(7);
  });

  it('REST: the page and its item list with included certificates cost the same for 5 and 50 items', async () => {
    const page = (target: any) => () => acme.rest('GET', `/students/${student.uuid}/pages/${target.uuid}?includes[student]=1`);
    const list = (target: any) => () => acme.rest('GET', `${itemsOf(target)}?per_page=50&includes[certificate]=1`);
    const [fewPage, manyPage] = [await statementsOf(page(small)), await statementsOf(page(large))];
    const [fewList, manyList] = [await statementsOf(list(small)), await statementsOf(list(large))];
    expect(manyPage.result.body.data.items).toHaveLength(50);
    expect(manyList.result.body.data).toHaveLength(50);
    expect(
      manyList.result.body.data.every((item: any) => item.certificate.course.name && item.certificate.institution.name && item.certificate.files.length),
    ).toBe(true);
    expect(manyPage.count).toBe(fewPage.count);
    expect(manyList.count).toBe(fewList.count);
    expect(manyList.count).toBeLessThanOrEqual(9);
  });

  it('a page holds at most 100 items', async () => {
    const full = await make.page(student.uuid);
    for (const certificate of issued.slice(0, 100)) expect((await acme.rest('POST', itemsOf(full), { certificate_uuid: certificate.uuid })).status).toBe(201);
    const refused = await acme.rest('POST', itemsOf(full), { certificate_uuid: issued[100].uuid });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ certificate_uuid: ['A page holds at most 100 items.'] });
    expect((await acme.rest('GET', `/students/${student.uuid}/pages/${full.uuid}`)).body.data.items).toHaveLength(100);
  });

  it('GET /p/{tenant}/{slug} lists all 50', async () => {
    const html = await (await publicPage(`/p/acme/${large.slug}`)).text();
    expect(html.match(/<li /g)).toHaveLength(50);
  });
});
