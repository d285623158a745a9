import type { Browser } from 'playwright-core';
import { launchChromium, watchedPage } from './support/browser.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ NOTIFICATION_WORKER: 'off' }), launchChromium()]);
  acme = await signIn(service, 'acme');
});
afterAll(async () => {
  await browser.close();
  await service.stop();
});

describe('GET /', () => {
  it('is a small HTML page naming the service and its version, with links onwards', async () => {
    const response = await fetch(`${service.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('<h1>Credential service</h1>');
    expect(html).toContain('<code>0.1.0</code>');
    for (const href of ['/graphql', '/graphiql', '/docs', '/readyz']) expect(html).toContain(`href="${href}"`);
  });

  it('in production links no IDE, and /graphiql is not served', async () => {
    const production = await startTestService({ NODE_ENV: 'production', KEY_ENCRYPTION_KEY: 'a'.repeat(64), NOTIFICATION_WORKER: 'off' }, service.database);
    try {
      const html = await (await fetch(`${production.url}/`)).text();
      expect(html).toContain('href="/readyz"');
      expect(html).not.toContain('href="/graphiql"');
      expect((await fetch(`${production.url}/graphiql`)).status).toBe(404);
    } finally {
      await production.stop();
    }
  });
});

describe('GraphiQL at /graphiql', () => {
  it('loads from this service alone (every other host blocked) and runs a query with the pasted tenant and token', async () => {
    const { page, consoleErrors, close } = await watchedPage(browser);
    const elsewhere: string[] = [];
    page.on('request', (request) => !request.url().startsWith(service.url) && elsewhere.push(request.url()));
    try {
      await page.goto(`${service.url}/graphiql`);
      await page.locator('.graphiql-container').waitFor();
      await page.fill('input[name=tenant]', 'acme');
      await page.fill('input[name=token]', acme.token);
      await page.click('button[type=submit]');
      await page.locator('.graphiql-container').waitFor();
      const headersTab = page.getByRole('button', { name: 'Headers' });
      if ((await headersTab.count()) > 0) await headersTab.first().click();
      await page.getByText(`"X-Tenant": "acme"`).first().waitFor();
      await page.locator('.graphiql-execute-button').click();
      await page.locator('.result-window').getByText('totalCount').waitFor();
      expect(await page.locator('.result-window').innerText()).toMatch(/"totalCount":\s*0/);
      expect(elsewhere).toEqual([]);
      expect(consoleErrors.filter((error) => /Content Security Policy|Refused/.test(error))).toEqual([]);
    } finally {
      await close();
    }
  });
});
