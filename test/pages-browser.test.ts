import { writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { EmbeddedChain } from '../src/anchoring/embedded-chain.js';
import { anchoringChain } from './support/blockcerts.js';
import { freePort, launchChromium, screenshot, axeViolations, VIEWPORTS, watchedPage, type ViewportName, type WatchedPage } from './support/browser.js';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { withReplacedText } from './support/forgery.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let browser: Browser;
let baseUrl: string;
const certificates: Record<'valid' | 'revoked' | 'expired' | 'pending', any> = {} as never;
let signedPdf: string;
let tamperedPdf: string;
let chain: EmbeddedChain;

async function issue(studentName: string, extra: Record<string, unknown> = {}) {
  const make = factories(api);
  const institution = await make.institution({ name: 'Instituto Federal' });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering' });
  const student = await make.student({ name: studentName });
  const file = (await upload(api, [[await diplomaPdf(studentName), 'diploma.pdf']])).body.data[0].uuid;
  const body = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, file_uuid: file, finish: true, ...extra };
  const response = await api.rest('POST', '/certificates', body);
  if (response.status !== 201) throw new Error(`issue answered ${response.status}`);
  return response.body.data;
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // Anchoring on: the pages show where a certificate is anchored, or that it is pending.
  const anchoring = await anchoringChain();
  chain = anchoring.chain;
  [service, browser] = await Promise.all([
    startTestService({ ...anchoring.env, PORT: String(port), PUBLIC_BASE_URL: baseUrl, NOTIFICATION_WORKER: 'off' }),
    launchChromium(),
  ]);
  api = await signIn(service, 'acme');
  certificates.valid = await issue('Mari Oliveira', { expires_at: '2031-05-01' });
  certificates.revoked = await issue('Rui Barbosa');
  expect((await api.rest('POST', `/certificates/${certificates.revoked.uuid}/revoke`, { reason: 'Academic misconduct' })).status).toBe(200);
  certificates.expired = await issue('Ana Expirada', { expires_at: '2030-01-01' });
  await service.orm.em.getConnection().execute(`update certificates set expires_at = now() - interval '1 day' where uuid = ?`, [certificates.expired.uuid]);
  // Verifiers want the anchoring transaction after the key's registration second; then the valid one is anchored.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await service.runtime.anchoring!.runOnce();
  certificates.pending = await issue('Pedro Pendente');

  const file = certificates.valid.files.find((entry: { type: string }) => entry.type === 'certificate');
  const signed = Buffer.from(await (await fetch(`${baseUrl}/api/v1/files/${file.uuid}/download`)).arrayBuffer());
  const folder = join(tmpdir(), `pages-browser-${process.pid}`);
  await mkdir(folder, { recursive: true });
  signedPdf = join(folder, 'certificate.pdf');
  tamperedPdf = join(folder, 'certificate-edited.pdf');
  await writeFile(signedPdf, signed);
  await writeFile(tamperedPdf, await withReplacedText(signed, 'Grade A+ with honours'));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await chain?.close();
});

/** Opens `path` and checks what every public page owes a person: no console error (CSP violations included), styled. */
async function open(watched: WatchedPage, path: string): Promise<Page> {
  const response = await watched.page.goto(`${baseUrl}${path}`);
  expect(response?.headers()['content-type']).toContain('text/html');
  return watched.page;
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

const statusBadge = (page: Page) => page.locator('[role=status] .status-badge');

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('public verification page at the %s viewport', (viewport) => {
  let watched: WatchedPage;
  beforeEach(async () => {
    watched = await watchedPage(browser, VIEWPORTS[viewport]);
  });
  afterEach(async () => {
    expect(watched.consoleErrors).toEqual([]);
    await watched.close();
  });

  it('shows a valid certificate with its badge, facts, downloads, LinkedIn link and a QR code', async () => {
    const { uuid } = certificates.valid;
    const page = await open(watched, `/verify/${uuid}`);
    await expect(statusBadge(page).textContent()).resolves.toBe('Valid');
    expect(await statusBadge(page).isVisible()).toBe(true);
    // Styled by the hash-admitted stylesheet: a CSP refusal would leave the banner transparent.
    expect(await page.locator('[role=status]').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(230, 244, 234)');
    expect(await page.locator('h1').innerText()).toBe('Data Engineering');
    expect(await page.getByText('Awarded to Mari Oliveira', { exact: true }).isVisible()).toBe(true);
    expect(await page.locator('dl').innerText()).toMatch(/Issued by\s+Instituto Federal[\s\S]*Valid until\s+May 1, 2031/);

    const certificateLink = page.getByRole('link', { name: 'Signed certificate (PDF)' });
    const transcriptLink = page.getByRole('link', { name: 'Signed transcript (PDF)' });
    for (const [link, type] of [
      [certificateLink, 'certificate'],
      [transcriptLink, 'transcript'],
    ] as const) {
      const file = certificates.valid.files.find((entry: { type: string }) => entry.type === type);
      expect(await link.getAttribute('href')).toBe(`${baseUrl}/api/v1/files/${file.uuid}/download`);
      const pdf = await page.request.get((await link.getAttribute('href'))!);
      expect([pdf.status(), (await pdf.body()).subarray(0, 5).toString()]).toEqual([200, '%PDF-']);
    }

    // The button goes through the page's counting redirect to LinkedIn's own address.
    const addToProfile = (await page.getByRole('link', { name: 'Add to LinkedIn profile' }).getAttribute('href'))!;
    expect(addToProfile).toBe(`${baseUrl}/verify/${uuid}/share/linkedin-profile?lang=en`);
    const redirect = await page.request.get(addToProfile, { maxRedirects: 0 });
    expect(redirect.status()).toBe(302);
    const linkedIn = new URL(redirect.headers().location!);
    expect(`${linkedIn.origin}${linkedIn.pathname}`).toBe('https://www.linkedin.com/profile/add');
    const issuedAt = new Date(certificates.valid.issued_at);
    expect(Object.fromEntries(linkedIn.searchParams)).toEqual({
      startTask: 'CERTIFICATION_NAME',
      name: 'Data Engineering',
      organizationName: 'Instituto Federal',
      issueYear: String(issuedAt.getUTCFullYear()),
      issueMonth: String(issuedAt.getUTCMonth() + 1),
      expirationYear: '2031',
      expirationMonth: '5',
      certUrl: `${baseUrl}/verify/${uuid}`,
      certId: uuid,
    });

    const qr = page.getByRole('img', { name: `QR code linking to ${baseUrl}/verify/${uuid}` });
    expect(await qr.isVisible()).toBe(true);
    expect(await page.locator('link[rel=canonical]').getAttribute('href')).toBe(`${baseUrl}/verify/${uuid}`);
    expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toBe('Data Engineering · Mari Oliveira · Certificate verification');
    expect(await page.locator('meta[property="og:url"]').getAttribute('content')).toBe(`${baseUrl}/verify/${uuid}`);
    expect(await page.getByRole('button', { name: 'Check the PDF' }).isVisible()).toBe(true);
    const anchored = (await api.rest('GET', `/certificates/${uuid}`)).body.data;
    expect(await page.locator('dl').innerText()).toMatch(/Blockchain anchor\s+Anchored on sepolia in block \d+ at /);
    expect(await page.getByRole('link', { name: 'View the transaction' }).getAttribute('href')).toBe(anchored.blockchain_tx_url);
    await expectAccessible(page);
    await screenshot(page, `verification-valid-${viewport}`);
  });

  it('says "Anchoring pending" for a certificate issued after the last batch', async () => {
    const page = await open(watched, `/verify/${certificates.pending.uuid}`);
    expect(await page.locator('dl').innerText()).toMatch(/Blockchain anchor\s+Anchoring pending/);
    await expectAccessible(page);
  });

  it('shows a revoked certificate as revoked, with date and reason, and offers no LinkedIn link', async () => {
    const page = await open(watched, `/verify/${certificates.revoked.uuid}`);
    await expect(statusBadge(page).textContent()).resolves.toBe('Revoked');
    expect(await page.locator('[role=status]').innerText()).toContain('It is no longer valid.');
    expect(await page.locator('dl').innerText()).toMatch(/Revoked on\s+\w+ \d{1,2}, \d{4}[\s\S]*Reason\s+Academic misconduct/);
    expect(await page.getByRole('link', { name: 'Add to LinkedIn profile' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `verification-revoked-${viewport}`);
  });

  it('shows an expired certificate as expired, with its expiry date', async () => {
    const page = await open(watched, `/verify/${certificates.expired.uuid}`);
    await expect(statusBadge(page).textContent()).resolves.toBe('Expired');
    expect(await page.locator('dl').innerText()).toMatch(/Expired on\s+\w+ \d{1,2}, \d{4}/);
    expect(await page.getByRole('link', { name: 'Add to LinkedIn profile' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `verification-expired-${viewport}`);
  });

  it('checks a signed PDF and an edited one uploaded through the form', async () => {
    const page = await open(watched, `/verify/${certificates.valid.uuid}`);
    await page.getByLabel('PDF file').setInputFiles(signedPdf);
    await Promise.all([page.waitForURL(`${baseUrl}/verify`), page.getByRole('button', { name: 'Check the PDF' }).click()]);
    await expect(statusBadge(page).textContent()).resolves.toBe('Authentic');
    expect(await page.locator('dl').innerText()).toMatch(/Type\s+Certificate[\s\S]*Recipient\s+Mari Oliveira[\s\S]*Certificate status now\s+Valid/);
    expect(await page.getByRole('link', { name: 'Open the verification page' }).getAttribute('href')).toBe(`${baseUrl}/verify/${certificates.valid.uuid}`);
    await expectAccessible(page);
    await screenshot(page, `upload-authentic-${viewport}`);

    await page.getByLabel('PDF file').setInputFiles(tamperedPdf);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Check the PDF' }).click()]);
    await expect(statusBadge(page).textContent()).resolves.toBe('Modified after signing');
    expect(await page.getByText('Do not trust what it says.').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Open the verification page' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `upload-modified-${viewport}`);
  });
});

describe('without JavaScript', () => {
  it('the verification page reads the same and the PDF check works through a plain form post', async () => {
    const watched = await watchedPage(browser, { ...VIEWPORTS.mobile, javaScriptEnabled: false });
    try {
      const page = await open(watched, `/verify/${certificates.revoked.uuid}`);
      await expect(statusBadge(page).textContent()).resolves.toBe('Revoked');
      expect(await page.getByText('Academic misconduct').first().isVisible()).toBe(true);
      await page.getByLabel('PDF file').setInputFiles(tamperedPdf);
      await Promise.all([page.waitForURL(`${baseUrl}/verify`), page.getByRole('button', { name: 'Check the PDF' }).click()]);
      await expect(statusBadge(page).textContent()).resolves.toBe('Modified after signing');
      await page.getByLabel('PDF file').setInputFiles(signedPdf);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Check the PDF' }).click()]);
      await expect(statusBadge(page).textContent()).resolves.toBe('Authentic');
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});

describe('in Brazilian Portuguese', () => {
  it('follows the browser’s language, dates included, and ?lang= switches back, form included', async () => {
    const watched = await watchedPage(browser, { ...VIEWPORTS.desktop, locale: 'pt-BR' });
    try {
      const page = await open(watched, `/verify/${certificates.valid.uuid}`);
      expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
      await expect(statusBadge(page).textContent()).resolves.toBe('Válido');
      expect(await page.locator('dl').innerText()).toMatch(/Válido até\s+1 de maio de 2031/);
      expect(await page.getByRole('link', { name: 'Adicionar ao perfil do LinkedIn' }).isVisible()).toBe(true);
      await screenshot(page, 'verification-valid-pt-BR');
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'English' }).click()]);
      await expect(statusBadge(page).textContent()).resolves.toBe('Valid');
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Português (Brasil)' }).click()]);
      await page.getByLabel('Arquivo PDF').setInputFiles(signedPdf);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Verificar o PDF' }).click()]);
      await expect(statusBadge(page).textContent()).resolves.toBe('Autêntico');
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});

describe('hostile names', () => {
  it('render as text: no dialog, no script or element injected, the stylesheet intact', async () => {
    const hostile = `<script>alert("name")</script>"' onmouseover=alert(1) </style><img src=x onerror=alert(2)>`;
    const make = factories(api);
    const institution = await make.institution({ name: `Inst ${hostile}` });
    const course = await make.course({ institution_uuid: institution.uuid, name: `Course ${hostile}` });
    const student = await make.student({ name: `Student ${hostile}` });
    const file = (await upload(api, [[await diplomaPdf('hostile'), 'diploma.pdf']])).body.data[0].uuid;
    const certificate = await api.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      file_uuid: file,
      finish: true,
    });
    expect(certificate.status).toBe(201);
    const watched = await watchedPage(browser, VIEWPORTS.desktop);
    try {
      const page = await open(watched, `/verify/${certificate.body.data.uuid}`);
      await page.locator('h1').hover();
      expect(await page.locator('h1').innerText()).toBe(`Course ${hostile}`);
      expect(await page.locator('.issuer').textContent()).toBe(`Inst ${hostile}`);
      expect(await page.title()).toContain(`Student ${hostile}`);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('style').count()).toBe(1);
      expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toBe(`Course ${hostile} · Student ${hostile} · Certificate verification`);
      expect(await page.locator('[role=status]').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(230, 244, 234)');
      expect(watched.dialogs).toEqual([]);
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});
