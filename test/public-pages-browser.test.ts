import type { Browser } from 'playwright-core';
import { axeViolations, freePort, launchChromium, screenshot, VIEWPORTS, watchedPage, type ViewportName, type WatchedPage } from './support/browser.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let browser: Browser;
let baseUrl: string;
const certificates: Record<'valid' | 'revoked', Record<string, any>> = {} as never;

const BADGE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/><path d="M20 33l8 8 16-18" fill="none" stroke="#fff" stroke-width="6"/></svg>';

async function issue(studentName: string) {
  const make = factories(api);
  const badge = (await upload(api, [[Buffer.from(BADGE_SVG), 'badge.svg']])).body.data[0].uuid;
  const institution = await make.institution({
    name: 'Universidad Abierta de Lisboa',
    is_badges_enabled: true,
    badge_image_uuid: badge,
    is_grade_public: true,
  });
  const course = await make.course({
    institution_uuid: institution.uuid,
    name: 'Data Engineering',
    description: 'Pipelines, streams and warehouses: design, build and run them in production.',
  });
  const modules = [
    await make.module({ institution_uuid: institution.uuid, name: 'SQL Foundations', code: 'SQL-1', workload: 60, credits: 4 }),
    await make.module({ institution_uuid: institution.uuid, name: 'Stream Processing', code: 'STR-2', workload: 40, credits: 3 }),
  ];
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, { modules: modules.map((module) => ({ module_uuid: module.uuid })) });
  const student = await make.student({ name: studentName });
  const enrollment = await make.enrollment({ student_uuid: student.uuid, course_uuid: course.uuid, grade: 9.25 });
  return make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, enrollment_uuid: enrollment.uuid });
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  [service, browser] = await Promise.all([startTestService({ PORT: String(port), PUBLIC_BASE_URL: baseUrl, NOTIFICATION_WORKER: 'off' }), launchChromium()]);
  api = await signIn(service, 'acme');
  certificates.valid = await issue('Lucía Fernández');
  certificates.revoked = await issue('Rui Barbosa');
  expect((await api.rest('POST', `/certificates/${certificates.revoked.uuid}/revoke`, { reason: 'Issued in error' })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the credential page at the %s viewport', (viewport) => {
  let watched: WatchedPage;
  afterEach(async () => {
    expect(watched.consoleErrors).toEqual([]);
    await watched.close();
  });

  it.each([
    ['es', 'Válido', 'Compartir en LinkedIn'],
    ['en', 'Valid', 'Share on LinkedIn'],
  ])('valid, in %s: image, course, modules, grade, share and embed, no accessibility violation', async (language, state, share) => {
    watched = await watchedPage(browser, { ...VIEWPORTS[viewport], locale: language, extraHTTPHeaders: { 'accept-language': language } });
    const { page } = watched;
    await page.goto(`${baseUrl}/verify/${certificates.valid.uuid}`);
    expect(await page.locator('html').getAttribute('lang')).toBe(language);
    expect(await page.locator('[role=status] .status-badge').textContent()).toBe(state);
    expect(await page.locator('img.credential-image').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
    expect(await page.getByRole('link', { name: share }).isVisible()).toBe(true);
    expect(await page.locator('#embed-code').inputValue()).toContain(`${baseUrl}/verify/${certificates.valid.uuid}/card.png?lang=${language}`);
    expect(await page.locator('.modules li').count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, `credential-valid-${language}-${viewport}`);
  });

  it.each([
    ['pt-BR', 'Revogado'],
    ['es', 'Revocado'],
  ])('revoked, in %s: its state first, no share, embed, QR or PDF, no accessibility violation', async (language, state) => {
    watched = await watchedPage(browser, { ...VIEWPORTS[viewport], locale: language, extraHTTPHeaders: { 'accept-language': language } });
    const { page } = watched;
    await page.goto(`${baseUrl}/verify/${certificates.revoked.uuid}`);
    const first = await page.locator('main > *').first().getAttribute('role');
    expect(first).toBe('status');
    expect(await page.locator('[role=status] .status-badge').textContent()).toBe(state);
    expect(await page.locator('a[href*="/share/"], #embed-code, .qr, a[download]').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, `credential-revoked-${language}-${viewport}`);
  });
});

it('the og:image card is what a shared link shows', async () => {
  const watched = await watchedPage(browser, VIEWPORTS.desktop);
  const response = await watched.page.goto(`${baseUrl}/verify/${certificates.valid.uuid}/card.png?lang=es`);
  expect(response?.headers()['content-type']).toBe('image/png');
  const card = await response!.body();
  expect([card.readUInt32BE(16), card.readUInt32BE(20)]).toEqual([1200, 630]);
  await watched.page.setViewportSize({ width: 1200, height: 630 });
  await screenshot(watched.page, 'credential-card-es');
  await watched.close();
});
