/**
 * Portfolio pages and items over REST and GraphQL: the spec's paths, the slug and item rules, nesting
 * under the student (another student's page is a 404), and tenant isolation.
 */
import { jest } from '@jest/globals';
import { factories, type Factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(180_000);

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
/** A student with three issued certificates (one revoked, one expired), a draft, and a certificate of someone else. */
let world: { student: any; other: any; issued: any[]; draft: any; revoked: any; expired: any; foreign: any };

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  make = factories(acme);
  const institution = await make.institution({ name: 'Instituto Federal' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering' });
  const [student, other] = [await make.student({ name: 'Maria Oliveira' }), await make.student()];
  const refs = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid };
  const issued = await Promise.all([make.certificate(refs), make.certificate(refs), make.certificate(refs)]);
  const revoked = await make.certificate(refs);
  expect((await acme.rest('POST', `/certificates/${revoked.uuid}/revoke`, { reason: 'Issued by mistake' })).status).toBe(200);
  // Issued with a future expiry (an issue may not be born expired), then past it.
  const expired = await make.certificate({ ...refs, expires_at: '2034-01-01T00:00:00Z' });
  await service.orm.em.fork().getConnection().execute(`update certificates set expires_at = '2024-01-01T00:00:00Z' where uuid = ?`, [expired.uuid]);
  const draft = await make.certificate({ ...refs, finish: false });
  const foreign = await make.certificate({ ...refs, student_uuid: other.uuid });
  world = { student, other, issued, draft, revoked, expired, foreign };
});
afterAll(() => service.stop());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const pagesOf = (student: Record<string, any>) => `/students/${student.uuid}/pages`;
const itemsOf = (page: Record<string, any>) => `/students/${page.student.uuid}/pages/${page.uuid}/items`;
const nowhere = '01a1fbd9-0000-7000-8000-000000000000';
let slugs = 0;
const slug = (prefix = 'maria') => `${prefix}-${++slugs}-${Date.now().toString(36)}`;

describe('portfolio pages over REST', () => {
  it('creates a page with the spec’s fields and defaults, which GET and the student’s list return', async () => {
    const created = await acme.rest('POST', pagesOf(world.student), { slug: slug() });
    expect(created.status).toBe(201);
    const page = created.body.data;
    expect(page).toEqual({
      uuid: expect.any(String),
      slug: page.slug,
      is_public: false,
      bio: null,
      public_url: `http://credentials.test/p/acme/${page.slug}`,
      student: { uuid: world.student.uuid, name: 'Maria Oliveira' },
      items: [],
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect((await acme.rest('GET', `${pagesOf(world.student)}/${page.uuid}`)).body.data).toEqual(page);
    const list = await acme.rest('GET', `${pagesOf(world.student)}?per_page=100`);
    expect(list.body.data).toContainEqual(page);
    expect(list.body.meta).toMatchObject({ current_page: 1, per_page: 100 });
    expect((await acme.rest('GET', `${pagesOf(world.other)}?per_page=100`)).body.data.map((row: any) => row.uuid)).not.toContain(page.uuid);
    const included = await acme.rest('GET', `${pagesOf(world.student)}/${page.uuid}?includes[student]=1`);
    expect(included.body.data.student).toMatchObject({ uuid: world.student.uuid, email: world.student.email, date_of_birth: '2001-02-03' });
  });

  it('lists with where, sort and paging', async () => {
    const student = await make.student();
    await make.page(student.uuid, { slug: slug('b-list'), is_public: true });
    await make.page(student.uuid, { slug: slug('a-list') });
    await make.page(student.uuid, { slug: slug('c-list'), is_public: true });
    const sorted = await acme.rest('GET', `${pagesOf(student)}?sort[column]=slug&sort[order]=desc`);
    expect(sorted.body.data.map((row: any) => row.slug[0])).toEqual(['c', 'b', 'a']);
    const filtered = await acme.rest('GET', `${pagesOf(student)}?where[is_public]=true&per_page=1&page=2`);
    expect(filtered.body.meta).toEqual({ current_page: 2, per_page: 1, total: 2, last_page: 2, total_is_estimate: false });
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.data[0].is_public).toBe(true);
    expect((await acme.rest('GET', `${pagesOf(student)}?where[bio]=x`)).status).toBe(422);
  });

  it('requires a URL-safe slug of 3-64 lower-case letters, digits and hyphens', async () => {
    const missing = await acme.rest('POST', pagesOf(world.student), { bio: 'no slug' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.slug).toEqual([expect.stringContaining('required')]);
    for (const wrong of ['ab', 'a'.repeat(65), 'Maria', 'maria oliveira', 'maria/../x', '-maria', 'maria-', 'maría', 'maria_o', '']) {
      const response = await acme.rest('POST', pagesOf(world.student), { slug: wrong });
      expect([wrong, response.status, Object.keys(response.body.errors ?? {})]).toEqual([wrong, 422, ['slug']]);
    }
    for (const right of ['abc', `a${'-b'.repeat(31)}c`.slice(0, 64), slug('x9')]) {
      const response = await acme.rest('POST', pagesOf(world.student), { slug: right });
      expect([right, response.status]).toEqual([right, 201]);
      await acme.rest('DELETE', `${pagesOf(world.student)}/${response.body.data.uuid}`);
    }
    const page = await make.page(world.student.uuid);
    const patched = await acme.rest('PATCH', `${pagesOf(world.student)}/${page.uuid}`, { slug: 'Not Valid' });
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body.errors)).toEqual(['slug']);
    expect((await acme.rest('PATCH', `${pagesOf(world.student)}/${page.uuid}`, { slug: null })).body.errors.slug).toEqual(['The slug field is required.']);
  });

  it('keeps slugs unique per tenant among live pages, also for concurrent creates', async () => {
    const taken = slug('taken');
    const first = await make.page(world.student.uuid, { slug: taken });
    const clash = await acme.rest('POST', pagesOf(world.other), { slug: taken });
    expect(clash.status).toBe(422);
    expect(clash.body.errors).toEqual({ slug: ['The slug has already been taken.'] });
    const renamed = await make.page(world.other.uuid);
    expect((await acme.rest('PATCH', `${pagesOf(world.other)}/${renamed.uuid}`, { slug: taken })).body.errors).toEqual({
      slug: ['The slug has already been taken.'],
    });
    // Another tenant has its own slugs; a deleted page frees its slug.
    const elsewhere = await factories(globex).page(undefined, { slug: taken });
    expect(elsewhere.slug).toBe(taken);
    expect((await acme.rest('DELETE', `${pagesOf(world.student)}/${first.uuid}`)).status).toBe(204);
    expect((await acme.rest('POST', pagesOf(world.other), { slug: taken })).status).toBe(201);

    const raced = slug('raced');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => acme.rest('POST', pagesOf(i % 2 ? world.student : world.other), { slug: raced })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    for (const answer of answers.filter((entry) => entry.status === 422)) expect(answer.body.errors).toEqual({ slug: ['The slug has already been taken.'] });
  });

  it('bounds the bio and PUT returns optional fields to their defaults', async () => {
    const tooLong = await acme.rest('POST', pagesOf(world.student), { slug: slug(), bio: 'x'.repeat(2001) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.bio).toEqual(['The bio field must not be greater than 2000 characters.']);
    const page = await make.page(world.student.uuid, { is_public: true, bio: 'Data engineer' });
    expect(page).toMatchObject({ is_public: true, bio: 'Data engineer' });
    const path = `${pagesOf(world.student)}/${page.uuid}`;
    const patched = await acme.rest('PATCH', path, { bio: 'Analytics engineer' });
    expect(patched.body.data).toEqual({ ...page, bio: 'Analytics engineer', updated_at: expect.stringMatching(TIMESTAMP) });
    const incomplete = await acme.rest('PUT', path, { bio: 'x' });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.errors.slug).toEqual([expect.stringContaining('required')]);
    const replaced = await acme.rest('PUT', path, { slug: page.slug });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ uuid: page.uuid, slug: page.slug, is_public: false, bio: null });
  });

  it('answers 404 for a page under another student, and for an unknown student', async () => {
    const page = await make.page(world.student.uuid);
    const wrong = `${pagesOf(world.other)}/${page.uuid}`;
    expect((await acme.rest('GET', wrong)).status).toBe(404);
    expect((await acme.rest('PATCH', wrong, { bio: 'x' })).status).toBe(404);
    expect((await acme.rest('PUT', wrong, { slug: page.slug })).status).toBe(404);
    expect((await acme.rest('DELETE', wrong)).status).toBe(404);
    expect((await acme.rest('GET', `/students/${nowhere}/pages`)).status).toBe(404);
    expect((await acme.rest('POST', `/students/${nowhere}/pages`, { slug: slug() })).status).toBe(404);
    expect((await acme.rest('DELETE', `/students/${nowhere}/pages`, { uuids: [page.uuid] })).status).toBe(404);
    expect((await acme.rest('GET', `/students/not-a-uuid/pages/${page.uuid}`)).status).toBe(404);
    expect((await acme.rest('GET', `${pagesOf(world.student)}/${page.uuid}`)).body.data.bio).toBeNull();
  });

  it('DELETE /students/{uuid}/pages deletes the pages named in uuids, all or nothing, only the student’s', async () => {
    const student = await make.student();
    const [a, b] = [await make.page(student.uuid), await make.page(student.uuid)];
    const theirs = await make.page(world.other.uuid);
    for (const uuids of [[a.uuid, nowhere], [a.uuid, theirs.uuid], []]) {
      const refused = await acme.rest('DELETE', pagesOf(student), { uuids });
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['uuids']);
    }
    expect((await acme.rest('GET', `${pagesOf(student)}/${a.uuid}`)).status).toBe(200);
    expect((await acme.rest('GET', `${pagesOf(world.other)}/${theirs.uuid}`)).status).toBe(200);
    expect((await acme.rest('DELETE', pagesOf(student), { uuids: [a.uuid] })).status).toBe(204);
    expect((await acme.rest('DELETE', `${pagesOf(student)}/batch/destroy`, { uuids: [b.uuid] })).status).toBe(204);
    expect((await acme.rest('GET', pagesOf(student))).body.data).toEqual([]);
  });

  it('deleting the student deletes their pages and frees the slugs', async () => {
    const student = await make.student();
    const page = await make.page(student.uuid, { slug: slug('leaving') });
    expect((await acme.rest('DELETE', `/students/${student.uuid}`)).status).toBe(204);
    const pages = await acme.graphql('query($slug: String) { portfolioPages(where: { slug: $slug }) { totalCount } }', { slug: page.slug });
    expect(pages.body.data.portfolioPages.totalCount).toBe(0);
    expect((await acme.rest('POST', pagesOf(world.other), { slug: page.slug })).status).toBe(201);
  });
});

describe('portfolio items over REST', () => {
  it('adds issued certificates last by default, visible by default, with the certificate embedded', async () => {
    const page = await make.page(world.student.uuid);
    const [one, two, three] = world.issued;
    const first = await acme.rest('POST', itemsOf(page), { certificate_uuid: one.uuid });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      uuid: expect.any(String),
      sort_order: 0,
      is_visible: true,
      certificate: { uuid: one.uuid, public_verification_url: `http://credentials.test/verify/${one.uuid}` },
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const placed = await acme.rest('POST', itemsOf(page), { certificate_uuid: two.uuid, sort_order: 10, is_visible: false });
    expect(placed.body.data).toMatchObject({ sort_order: 10, is_visible: false });
    const last = await acme.rest('POST', itemsOf(page), { certificate_uuid: three.uuid });
    expect(last.body.data.sort_order).toBe(11);
    const fetched = await acme.rest('GET', `${pagesOf(world.student)}/${page.uuid}`);
    expect(fetched.body.data.items.map((item: any) => item.certificate.uuid)).toEqual([one.uuid, two.uuid, three.uuid]);
    expect((await acme.rest('GET', `${itemsOf(page)}/${first.body.data.uuid}`)).body.data).toEqual(first.body.data);
  });

  it('accepts revoked and expired certificates and refuses drafts, another student’s and unknown ones with 422 on certificate_uuid', async () => {
    const page = await make.page(world.student.uuid);
    expect((await acme.rest('POST', itemsOf(page), { certificate_uuid: world.revoked.uuid })).status).toBe(201);
    expect((await acme.rest('POST', itemsOf(page), { certificate_uuid: world.expired.uuid })).status).toBe(201);
    const cases: [string, unknown, string][] = [
      ['draft', world.draft.uuid, 'The certificate must be issued.'],
      ['another student’s', world.foreign.uuid, 'The certificate must be one of the page’s student’s.'],
      ['unknown', nowhere, 'The selected certificate uuid is invalid.'],
      ['malformed', 'x', 'The selected certificate uuid is invalid.'],
      ['already on the page', world.revoked.uuid, 'The certificate is already on this page.'],
    ];
    for (const [label, uuid, message] of cases) {
      const response = await acme.rest('POST', itemsOf(page), { certificate_uuid: uuid });
      expect([label, response.status, response.body.errors]).toEqual([label, 422, { certificate_uuid: [message] }]);
    }
    const missing = await acme.rest('POST', itemsOf(page), { sort_order: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.certificate_uuid).toEqual([expect.stringContaining('required')]);
    const badOrder = await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid, sort_order: -1 });
    expect(badOrder.status).toBe(422);
    expect(badOrder.body.errors).toEqual({ sort_order: ['The sort order field must be at least 0.'] });
    const badVisibility = await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid, is_visible: 'yes' });
    expect(badVisibility.status).toBe(422);
    expect(Object.keys(badVisibility.body.errors)).toEqual(['is_visible']);
    // The same certificate may stand on another page.
    expect((await acme.rest('POST', itemsOf(await make.page(world.student.uuid)), { certificate_uuid: world.revoked.uuid })).status).toBe(201);
  });

  it('lets exactly one of concurrent adds of the same certificate through', async () => {
    const page = await make.page(world.student.uuid);
    const answers = await Promise.all(Array.from({ length: 6 }, () => acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[1].uuid })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    const concurrent = await Promise.all(world.issued.map((certificate) => acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid })));
    const orders = (await acme.rest('GET', `${itemsOf(page)}?sort[column]=sort_order`)).body.data.map((item: any) => item.sort_order);
    expect(concurrent.filter((answer) => answer.status === 201)).toHaveLength(2);
    expect(orders).toEqual([0, 1, 2]);
  });

  it('PATCH changes visibility or order only; the certificate stays', async () => {
    const page = await make.page(world.student.uuid);
    const item = (await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid })).body.data;
    const path = `${itemsOf(page)}/${item.uuid}`;
    const hidden = await acme.rest('PATCH', path, { is_visible: false, certificate_uuid: world.issued[1].uuid });
    expect(hidden.status).toBe(200);
    expect(hidden.body.data).toEqual({ ...item, is_visible: false, updated_at: expect.stringMatching(TIMESTAMP) });
    const moved = await acme.rest('PATCH', path, { sort_order: 7 });
    expect(moved.body.data).toMatchObject({ sort_order: 7, is_visible: false, certificate: item.certificate });
    expect((await acme.rest('PATCH', path, { sort_order: null })).status).toBe(422);
    expect((await acme.rest('PATCH', path, { sort_order: 1_000_001 })).body.errors.sort_order).toEqual([
      'The sort order field must not be greater than 1000000.',
    ]);
  });

  it('lists a page’s items with where, sort, paging and includes', async () => {
    const page = await make.page(world.student.uuid);
    for (const [index, certificate] of world.issued.entries()) {
      await acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid, sort_order: 10 - index, is_visible: index !== 1 });
    }
    const sorted = await acme.rest('GET', `${itemsOf(page)}?sort[column]=sort_order&sort[order]=asc`);
    expect(sorted.body.data.map((item: any) => item.sort_order)).toEqual([8, 9, 10]);
    expect(sorted.body.meta.total).toBe(3);
    const visible = await acme.rest('GET', `${itemsOf(page)}?where[is_visible]=false`);
    expect(visible.body.data.map((item: any) => item.certificate.uuid)).toEqual([world.issued[1].uuid]);
    const paged = await acme.rest('GET', `${itemsOf(page)}?per_page=2&page=2&sort[column]=sort_order`);
    expect(paged.body.data.map((item: any) => item.sort_order)).toEqual([10]);
    expect(paged.body.meta).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, total_is_estimate: false });
    const included = await acme.rest('GET', `${itemsOf(page)}?includes[certificate]=1&where[certificate_uuid]=${world.issued[0].uuid}`);
    expect(included.body.data).toHaveLength(1);
    expect(included.body.data[0].certificate).toMatchObject({
      uuid: world.issued[0].uuid,
      status: 'issued',
      institution: { name: 'Instituto Federal' },
      course: { name: 'Data Engineering' },
    });
    expect((await acme.rest('GET', `${itemsOf(page)}?includes[page]=1`)).status).toBe(422);
    expect((await acme.rest('GET', `${itemsOf(page)}?sort[column]=slug`)).status).toBe(422);
  });

  it('answers 404 for items under another page or student, and for a page under another student', async () => {
    const page = await make.page(world.student.uuid);
    const otherPage = await make.page(world.student.uuid);
    const theirs = await make.page(world.other.uuid);
    const item = (await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid })).body.data;
    const underWrongStudent = { ...page, student: world.other };
    for (const base of [itemsOf(otherPage), itemsOf(underWrongStudent)]) {
      expect((await acme.rest('GET', `${base}/${item.uuid}`)).status).toBe(404);
      expect((await acme.rest('PATCH', `${base}/${item.uuid}`, { is_visible: false })).status).toBe(404);
      expect((await acme.rest('DELETE', `${base}/${item.uuid}`)).status).toBe(404);
    }
    expect((await acme.rest('GET', itemsOf(underWrongStudent))).status).toBe(404);
    expect((await acme.rest('POST', itemsOf(underWrongStudent), { certificate_uuid: world.issued[1].uuid })).status).toBe(404);
    expect((await acme.rest('POST', itemsOf({ uuid: nowhere, student: world.student }), { certificate_uuid: world.issued[1].uuid })).status).toBe(404);
    expect((await acme.rest('DELETE', `${itemsOf(underWrongStudent)}/batch/destroy`, { uuids: [item.uuid] })).status).toBe(404);
    // The other student's page does not take this student's certificates.
    expect((await acme.rest('POST', itemsOf(theirs), { certificate_uuid: world.issued[1].uuid })).body.errors).toEqual({
      certificate_uuid: ['The certificate must be one of the page’s student’s.'],
    });
    expect((await acme.rest('GET', `${itemsOf(page)}/${item.uuid}`)).body.data).toEqual(item);
  });

  it('deletes one item, or a batch all or nothing, only from the page in the path', async () => {
    const page = await make.page(world.student.uuid);
    const otherPage = await make.page(world.student.uuid);
    const [a, b, c] = await Promise.all(world.issued.map((certificate) => acme.rest('POST', itemsOf(page), { certificate_uuid: certificate.uuid })));
    const elsewhere = (await acme.rest('POST', itemsOf(otherPage), { certificate_uuid: world.issued[0].uuid })).body.data;
    const refused = await acme.rest('DELETE', `${itemsOf(page)}/batch/destroy`, { uuids: [a!.body.data.uuid, elsewhere.uuid] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.uuids).toEqual([`These uuids do not exist: ${elsewhere.uuid}.`]);
    expect((await acme.rest('GET', itemsOf(page))).body.data).toHaveLength(3);
    expect((await acme.rest('DELETE', `${itemsOf(page)}/batch/destroy`, { uuids: [a!.body.data.uuid, b!.body.data.uuid] })).status).toBe(204);
    expect((await acme.rest('DELETE', `${itemsOf(page)}/${c!.body.data.uuid}`)).status).toBe(204);
    expect((await acme.rest('GET', itemsOf(page))).body.data).toEqual([]);
    expect((await acme.rest('GET', itemsOf(otherPage))).body.data).toEqual([elsewhere]);
    // A deleted item frees its certificate for the page again; deleting the page deletes its items.
    const again = await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid });
    expect(again.status).toBe(201);
    expect(again.body.data.sort_order).toBe(0); // deleted items hold no position
    expect((await acme.rest('DELETE', `${pagesOf(world.student)}/${otherPage.uuid}`)).status).toBe(204);
    const left = await acme.graphql('query($uuid: ID) { portfolioItems(where: { pageUuid: $uuid }) { totalCount } }', { uuid: otherPage.uuid });
    expect(left.body.data.portfolioItems.totalCount).toBe(0);
  });
});

const PAGE_FIELDS = 'uuid slug isPublic bio publicUrl student { uuid name } items { uuid sortOrder isVisible certificate { uuid status } }';

describe('portfolio pages and items over GraphQL', () => {
  it('creates, reads, changes and deletes pages and items through the named operations', async () => {
    const created = await acme.graphql(`mutation($input: PortfolioPageInput!) { createPortfolioPage(input: $input) { ${PAGE_FIELDS} } }`, {
      input: { studentUuid: world.student.uuid, slug: slug('gql'), bio: 'Hi' },
    });
    const page = created.body.data.createPortfolioPage;
    expect(page).toMatchObject({ isPublic: false, bio: 'Hi', student: { uuid: world.student.uuid, name: 'Maria Oliveira' }, items: [] });

    const added = await acme.graphql('mutation($input: PortfolioItemInput!) { addPortfolioItem(input: $input) { uuid sortOrder isVisible page { uuid } } }', {
      input: { pageUuid: page.uuid, certificateUuid: world.revoked.uuid },
    });
    const item = added.body.data.addPortfolioItem;
    expect(item).toMatchObject({ sortOrder: 0, isVisible: true, page: { uuid: page.uuid } });
    const second = await acme.graphql('mutation($input: PortfolioItemInput!) { addPortfolioItem(input: $input) { uuid } }', {
      input: { pageUuid: page.uuid, certificateUuid: world.issued[0].uuid },
    });

    const updated = await acme.graphql(
      'mutation($uuid: ID!) { updatePortfolioItem(uuid: $uuid, input: { isVisible: false, sortOrder: 5 }) { isVisible sortOrder } }',
      {
        uuid: item.uuid,
      },
    );
    expect(updated.body.data.updatePortfolioItem).toEqual({ isVisible: false, sortOrder: 5 });
    const patched = await acme.graphql('mutation($uuid: ID!) { updatePortfolioPage(uuid: $uuid, input: { isPublic: true }) { isPublic bio } }', {
      uuid: page.uuid,
    });
    expect(patched.body.data.updatePortfolioPage).toEqual({ isPublic: true, bio: 'Hi' });

    const read = await acme.graphql(
      `query($uuid: ID!, $student: ID!) {
        portfolioPage(uuid: $uuid, studentUuid: $student) { ${PAGE_FIELDS} }
        student(uuid: $student) { pages(first: 100) { nodes { uuid } } }
        portfolioPages(where: { studentUuid: $student, isPublic: true }, first: 100) { totalCount nodes { uuid } }
        portfolioItems(where: { pageUuid: $uuid }, sort: { column: sort_order, order: desc }) { totalCount nodes { uuid } }
      }`,
      { uuid: page.uuid, student: world.student.uuid },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.portfolioPage.items.map((entry: any) => [entry.certificate.uuid, entry.certificate.status])).toEqual([
      [world.issued[0].uuid, 'issued'],
      [world.revoked.uuid, 'revoked'],
    ]);
    expect(read.body.data.student.pages.nodes.map((entry: any) => entry.uuid)).toContain(page.uuid);
    expect(read.body.data.portfolioPages.nodes.map((entry: any) => entry.uuid)).toContain(page.uuid);
    expect(read.body.data.portfolioItems.nodes.map((entry: any) => entry.uuid)).toEqual([item.uuid, second.body.data.addPortfolioItem.uuid]);

    const replaced = await acme.graphql(
      'mutation($uuid: ID!, $input: PortfolioPageInput!) { replacePortfolioPage(uuid: $uuid, input: $input) { slug isPublic bio } }',
      {
        uuid: page.uuid,
        input: { studentUuid: world.student.uuid, slug: page.slug },
      },
    );
    expect(replaced.body.data.replacePortfolioPage).toEqual({ slug: page.slug, isPublic: false, bio: null });
    const removed = await acme.graphql('mutation($uuid: ID!) { deletePortfolioItem(uuid: $uuid) }', { uuid: item.uuid });
    expect(removed.body.data.deletePortfolioItem).toBe(true);
    const removedMany = await acme.graphql('mutation($uuids: [ID!]!) { deletePortfolioItems(uuids: $uuids) }', {
      uuids: [second.body.data.addPortfolioItem.uuid],
    });
    expect(removedMany.body.data.deletePortfolioItems).toBe(1);
    const pagesGone = await acme.graphql('mutation($uuids: [ID!]!, $student: ID) { deletePortfolioPages(uuids: $uuids, studentUuid: $student) }', {
      uuids: [page.uuid],
      student: world.student.uuid,
    });
    expect(pagesGone.body.data.deletePortfolioPages).toBe(1);
    const gone = await acme.graphql('query($uuid: ID!) { portfolioPage(uuid: $uuid) { uuid } }', { uuid: page.uuid });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('reports the same rules as BAD_USER_INPUT with per-field errors, and other parents as NOT_FOUND', async () => {
    const page = await make.page(world.student.uuid);
    const taken = await acme.graphql('mutation($input: PortfolioPageInput!) { createPortfolioPage(input: $input) { uuid } }', {
      input: { studentUuid: world.other.uuid, slug: page.slug },
    });
    expect(taken.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { slug: ['The slug has already been taken.'] } });
    const badSlug = await acme.graphql('mutation($input: PortfolioPageInput!) { createPortfolioPage(input: $input) { uuid } }', {
      input: { studentUuid: world.other.uuid, slug: 'No Good' },
    });
    expect(badSlug.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { slug: [expect.stringContaining('lower-case')] } });
    const draft = await acme.graphql('mutation($input: PortfolioItemInput!) { addPortfolioItem(input: $input) { uuid } }', {
      input: { pageUuid: page.uuid, certificateUuid: world.draft.uuid },
    });
    expect(draft.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { certificateUuid: ['The certificate must be issued.'] } });
    const wrongStudent = await acme.graphql('query($uuid: ID!, $student: ID) { portfolioPage(uuid: $uuid, studentUuid: $student) { uuid } }', {
      uuid: page.uuid,
      student: world.other.uuid,
    });
    expect(wrongStudent.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const item = (await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[2].uuid })).body.data;
    for (const guard of [{ studentUuid: world.other.uuid }, { pageUuid: (await make.page(world.student.uuid)).uuid }]) {
      const response = await acme.graphql(
        'query($uuid: ID!, $pageUuid: ID, $studentUuid: ID) { portfolioItem(uuid: $uuid, pageUuid: $pageUuid, studentUuid: $studentUuid) { uuid } }',
        {
          uuid: item.uuid,
          ...guard,
        },
      );
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const moved = await acme.graphql('mutation($uuid: ID!, $input: PortfolioPageInput!) { replacePortfolioPage(uuid: $uuid, input: $input) { uuid } }', {
      uuid: page.uuid,
      input: { studentUuid: world.other.uuid, slug: page.slug },
    });
    expect(moved.body.errors[0].extensions.errors).toEqual({ studentUuid: ['A portfolio page cannot move to another student.'] });
  });
});

describe('tenant isolation', () => {
  it('hides a tenant’s pages and items from another, and refuses its certificates and students', async () => {
    const page = await make.page(world.student.uuid, { is_public: true });
    const item = (await acme.rest('POST', itemsOf(page), { certificate_uuid: world.issued[0].uuid })).body.data;
    for (const [method, path] of [
      ['GET', pagesOf(world.student)],
      ['GET', `${pagesOf(world.student)}/${page.uuid}`],
      ['PATCH', `${pagesOf(world.student)}/${page.uuid}`],
      ['DELETE', `${pagesOf(world.student)}/${page.uuid}`],
      ['GET', itemsOf(page)],
      ['PATCH', `${itemsOf(page)}/${item.uuid}`],
      ['DELETE', `${itemsOf(page)}/${item.uuid}`],
    ] as const) {
      const response = await globex.rest(method, path, method === 'GET' ? undefined : { is_visible: false, bio: 'taken' });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    const theirs = await factories(globex).page();
    const stolen = await globex.rest('POST', itemsOf(theirs), { certificate_uuid: world.issued[0].uuid });
    expect(stolen.body.errors).toEqual({ certificate_uuid: ['The selected certificate uuid is invalid.'] });
    const lists = await globex.graphql('{ portfolioPages(first: 100) { nodes { uuid } } portfolioItems(first: 100) { nodes { uuid } } }');
    expect(JSON.stringify(lists.body.data)).not.toContain(page.uuid);
    expect(JSON.stringify(lists.body.data)).not.toContain(item.uuid);
    expect((await acme.rest('GET', `${itemsOf(page)}/${item.uuid}`)).body.data).toEqual(item);
    expect((await acme.rest('GET', `${pagesOf(world.student)}/${page.uuid}`)).body.data.bio).toBeNull();
  });
});
