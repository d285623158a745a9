import type { Browser, Page } from 'playwright-core';
import { freePort, launchChromium, screenshot, axeViolations, VIEWPORTS, watchedPage, type ViewportName } from './support/browser.js';
import { factories, type Factories } from './support/factories.js';
import { upload } from './support/files.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let make: Factories;
let browser: Browser;
let baseUrl: string;
let portfolioPath: string;
/** [valid with badge, revoked, expired, hidden] */
let certificates: any[];

/** A badge a person can see in the screenshots: a blue seal with a tick. */
const BADGE_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/><path d="M19 33l9 9 17-19" stroke="#fff" stroke-width="6" fill="none"/></svg>',
);

const HOSTILE = `<script>alert("x")</script>"' </style><img src=x onerror=alert(2)>`;

async function publicPage(studentUuid: string, fields: Record<string, unknown>, items: { certificate: any; is_visible?: boolean }[]): Promise<string> {
  const page = await make.page(studentUuid, { is_public: true, ...fields });
  for (const [index, item] of items.entries()) {
    const added = await api.rest('POST', `/students/${studentUuid}/pages/${page.uuid}/items`, {
      certificate_uuid: item.certificate.uuid,
      sort_order: index + 1,
      is_visible: item.is_visible ?? true,
    });
    expect(added.status).toBe(201);
  }
  return `/p/acme/${page.slug}`;
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  [service, browser] = await Promise.all([startTestService({ PORT: String(port), PUBLIC_BASE_URL: baseUrl, NOTIFICATION_WORKER: 'off' }), launchChromium()]);
  api = await signIn(service, 'acme');
  make = factories(api);
  const student = await make.student({ name: 'Maria Oliveira', social_name: 'Mia Oliveira' });
  const badgeImage = (await upload(api, [[BADGE_SVG, 'badge.svg']])).body.data[0].uuid;
  const badged = await make.institution({ name: 'Badge Academy', is_badges_enabled: true, badge_image_uuid: badgeImage });
  const plain = await make.institution({ name: 'Instituto Federal' });
  const issue = async (course: string, institution: any, fields: Record<string, unknown> = {}) =>
    make.certificate({
      institution_uuid: institution.uuid,
      course_uuid: (await make.course({ institution_uuid: institution.uuid, name: course })).uuid,
      student_uuid: student.uuid,
      ...fields,
    });
  certificates = [
    await issue('Data Engineering', badged),
    await issue('Statistics I', plain),
    await issue('Python Basics', plain, { expires_at: '2034-06-30T00:00:00Z' }),
    await issue('Hidden Course', plain),
  ];
  expect((await api.rest('POST', `/certificates/${certificates[1].uuid}/revoke`, { reason: 'Withdrawn' })).status).toBe(200);
  // Issued with a future expiry (an issue may not be born expired), then past it.
  await service.orm.em.fork().getConnection().execute(`update certificates set expires_at = '2024-06-30T00:00:00Z' where uuid = ?`, [certificates[2].uuid]);
  portfolioPath = await publicPage(student.uuid, { bio: 'Data engineer in São Paulo.\nOpen to work.' }, [
    { certificate: certificates[0] },
    { certificate: certificates[1] },
    { certificate: certificates[2] },
    { certificate: certificates[3], is_visible: false },
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const items = (page: Page) => page.locator('li.item');

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('public portfolio page at the %s viewport', (viewport) => {
  it('shows the student, the visible credentials in order with their status, badges and verification links', async () => {
    const watched = await watchedPage(browser, VIEWPORTS[viewport]);
    try {
      const { page } = watched;
      await page.goto(`${baseUrl}${portfolioPath}`);
      expect(await page.locator('h1').innerText()).toBe('Mia Oliveira');
      expect(await page.locator('.bio').innerText()).toBe('Data engineer in São Paulo.\nOpen to work.');
      expect(await items(page).locator('h3').allInnerTexts()).toEqual(['Data Engineering', 'Statistics I', 'Python Basics']);
      expect(await page.getByText('Hidden Course').count()).toBe(0);
      expect(await items(page).locator('.status-badge').allInnerTexts()).toEqual(['Valid', 'Revoked', 'Expired']);
      for (const badge of await items(page).locator('.status-badge').all()) expect(await badge.isVisible()).toBe(true);
      expect(await items(page).nth(1).innerText()).toMatch(/Revoked on \w+ \d{1,2}, \d{4}/);
      expect(await items(page).nth(2).innerText()).toContain('Expired on June 30, 2024');

      const badgeImage = items(page).nth(0).getByRole('img', { name: 'Badge for Data Engineering' });
      expect(await badgeImage.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
      expect(await items(page).nth(1).locator('img').count()).toBe(0);

      for (const [index, certificate] of certificates.slice(0, 3).entries()) {
        const link = items(page)
          .nth(index)
          .getByRole('link', { name: /^Verify / });
        expect(await link.getAttribute('href')).toBe(`${baseUrl}/verify/${certificate.uuid}`);
      }
      expect(await page.locator('link[rel=canonical]').getAttribute('href')).toBe(`${baseUrl}${portfolioPath}`);
      expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toBe('Mia Oliveira · Credentials');
      expect(await page.locator('meta[property="og:type"]').getAttribute('content')).toBe('profile');
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `portfolio-${viewport}`);

      await Promise.all([page.waitForURL(`${baseUrl}/verify/${certificates[1].uuid}`), items(page).nth(1).getByRole('link').click()]);
      expect(await page.locator('[role=status] .status-badge').innerText()).toBe('Revoked');
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});

describe('the portfolio page', () => {
  it('reads the same without JavaScript, and in Portuguese', async () => {
    const watched = await watchedPage(browser, { ...VIEWPORTS.mobile, javaScriptEnabled: false, locale: 'pt-BR' });
    try {
      const { page } = watched;
      const response = await page.goto(`${baseUrl}${portfolioPath}`);
      expect(response?.headers()['content-language']).toBe('pt-BR');
      expect(await items(page).locator('.status-badge').allInnerTexts()).toEqual(['Válido', 'Revogado', 'Expirado']);
      expect(await items(page).nth(2).innerText()).toContain('Expirou em 30 de junho de 2024');
      expect(await page.getByRole('heading', { name: 'Credenciais' }).isVisible()).toBe(true);
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('renders hostile names, course titles and bios as text: no dialog, no injected element', async () => {
    const student = await make.student({ name: `Student ${HOSTILE}` });
    const institution = await make.institution({ name: `Inst ${HOSTILE}` });
    const course = await make.course({ institution_uuid: institution.uuid, name: `Course ${HOSTILE}` });
    const certificate = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid });
    const path = await publicPage(student.uuid, { bio: `Bio ${HOSTILE}` }, [{ certificate }]);
    const watched = await watchedPage(browser, VIEWPORTS.desktop);
    try {
      const { page } = watched;
      await page.goto(`${baseUrl}${path}`);
      await page.locator('h1').hover();
      expect(await page.locator('h1').innerText()).toBe(`Student ${HOSTILE}`);
      expect(await page.locator('.bio').innerText()).toBe(`Bio ${HOSTILE}`);
      expect(await items(page).locator('h3').innerText()).toBe(`Course ${HOSTILE}`);
      expect(await items(page).locator('.meta').first().innerText()).toContain(`Inst ${HOSTILE}`);
      expect(await page.title()).toBe(`Student ${HOSTILE} · Credentials`);
      expect([await page.locator('script').count(), await page.locator('img').count(), await page.locator('style').count()]).toEqual([0, 0, 1]);
      expect(await page.locator('.item').evaluate((element) => getComputedStyle(element).borderRadius)).toBe('10px');
      expect(watched.dialogs).toEqual([]);
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('is a styled 404 page when private or unknown', async () => {
    const watched = await watchedPage(browser, VIEWPORTS.desktop);
    try {
      const response = await watched.page.goto(`${baseUrl}/p/acme/no-such-page`);
      expect(response?.status()).toBe(404);
      expect(await watched.page.locator('h1').innerText()).toBe('Page not found');
      expect(await axeViolations(watched.page)).toEqual([]);
      // The 404 status is the only console message a browser logs here.
      expect(watched.consoleErrors.filter((message) => !message.includes('404'))).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});
