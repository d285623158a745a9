import { createHash } from 'node:crypto';
import { chooseLocale, formatDate } from '../src/pages/locale.js';
import { linkedInAddToProfileUrl } from '../src/pages/linkedin.js';
import { issueFrom } from './support/issued.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;
let certificateUuid: string;

beforeAll(async () => {
  // Small enough that a real PDF is over the limit; two PDF checks a minute per address.
  service = await startTestService({ NOTIFICATION_WORKER: 'off', VERIFY_MAX_BYTES: '2048', RATE_LIMIT_VERIFY_PER_MINUTE: '3' });
  api = await signIn(service, 'acme');
  const { certificate } = await issueFrom(api, await diplomaPdf('Pages'));
  certificateUuid = certificate.uuid;
});
afterAll(() => service.stop());

const page = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers: { accept: 'text/html', ...headers } });

function policy(header: string | null): Map<string, string[]> {
  const directives = (header ?? '').split(';').map((part) => part.trim().split(/\s+/));
  return new Map(directives.map(([name, ...sources]) => [name!, sources]));
}

function checkForm(file: Blob | null, address: string, query = ''): Promise<Response> {
  const form = new FormData();
  if (file) form.append('file', file, 'upload.pdf');
  return fetch(`${service.url}/verify${query}`, { method: 'POST', body: form, headers: { accept: 'text/html', 'x-forwarded-for': address } });
}

describe('public page headers', () => {
  it('carry a strict policy (the stylesheet by hash, no script), nosniff, no referrer, no framing, the language and Vary', async () => {
    for (const path of [`/verify/${certificateUuid}`, '/verify', '/verify/01a1fbd9-0000-7000-8000-000000000000', '/nowhere']) {
      const response = await page(path);
      const html = await response.text();
      const csp = policy(response.headers.get('content-security-policy'));
      const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
      expect({ path, styles: csp.get('style-src'), script: csp.get('script-src') }).toEqual({ path, styles, script: undefined });
      expect(csp.get('default-src')).toEqual(["'none'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.get('form-action')).toEqual(["'self'"]);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('content-language')).toBe('en');
      expect(response.headers.get('vary')).toContain('Accept-Language');
      expect(html).not.toMatch(/<script|\sstyle=/);
    }
  });
});

describe('languages', () => {
  it('follow Accept-Language, with ?lang= overriding it', async () => {
    const portuguese = await page(`/verify/${certificateUuid}`, { 'accept-language': 'de;q=1, pt;q=0.8, en;q=0.5' });
    expect(portuguese.headers.get('content-language')).toBe('pt-BR');
    expect(await portuguese.text()).toContain('<html lang="pt-BR">');
    const overridden = await page(`/verify/${certificateUuid}?lang=en`, { 'accept-language': 'pt-BR' });
    expect(overridden.headers.get('content-language')).toBe('en');
    const unknown = await page(`/verify/${certificateUuid}?lang=xx`, { 'accept-language': 'fr' });
    expect(unknown.headers.get('content-language')).toBe('en');
  });

  it('name dates the way each language writes them, in UTC', () => {
    const date = new Date('2026-03-01T01:00:00Z');
    expect([formatDate(date, 'en'), formatDate(date, 'pt-BR')]).toEqual(['March 1, 2026', '1 de março de 2026']);
    const ask = (query: Record<string, string>, header?: string) => chooseLocale({ query, get: () => header } as never);
    expect(ask({ lang: 'PT_br' })).toEqual({ locale: 'pt-BR', explicit: true });
    expect(ask({}, 'pt')).toEqual({ locale: 'pt-BR', explicit: false });
  });
});

describe('LinkedIn add-to-profile link', () => {
  it('names the certification, organisation, issue month and the credential', () => {
    const url = new URL(
      linkedInAddToProfileUrl({
        uuid: 'abc',
        state: 'valid',
        recipientName: 'Ana',
        institutionName: 'Instituto & Co',
        courseName: 'Data "Engineering"',
        issuedAt: new Date('2026-12-31T23:30:00Z'),
        expiresAt: null,
        revokedAt: null,
        revocationReason: null,
        verificationUrl: 'https://credentials.example/verify/abc',
        documents: [],
        anchor: null,
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      startTask: 'CERTIFICATION_NAME',
      name: 'Data "Engineering"',
      organizationName: 'Instituto & Co',
      issueYear: '2026',
      issueMonth: '12',
      certUrl: 'https://credentials.example/verify/abc',
      certId: 'abc',
    });
  });
});

describe('not found', () => {
  it('is a page for browsers and stays JSON for API clients', async () => {
    const browser = await page('/no/such/page');
    expect([browser.status, browser.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect(await browser.text()).toContain('<h1>Page not found</h1>');
    const client = await fetch(`${service.url}/no/such/page`);
    expect([client.status, await client.json()]).toEqual([404, { message: 'Not found.' }]);
    const api = await fetch(`${service.url}/api/v1/nothing`, { headers: { accept: 'text/html' } });
    expect(api.headers.get('content-type')).toContain('application/json');
    const certificate = await page('/verify/not-a-uuid', { 'accept-language': 'pt-BR' });
    expect([certificate.status, await certificate.text()]).toEqual([404, expect.stringContaining('<h1>Certificado não encontrado</h1>')]);
  });
});

describe('the PDF check form', () => {
  it('answers problems as pages with the API’s statuses: too large, no file, not a form, then the rate limit', async () => {
    const tooLarge = await checkForm(new Blob(['%PDF-1.7\n', 'x'.repeat(4096)]), '192.0.2.10');
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.text()).toContain('Files up to 2 kB can be checked');
    const empty = await checkForm(new Blob([]), '192.0.2.10', '?lang=pt');
    expect([empty.status, empty.headers.get('content-language')]).toEqual([422, 'pt-BR']);
    expect(await empty.text()).toContain('Escolha um arquivo PDF para verificar.');
    const raw = await fetch(`${service.url}/verify`, {
      method: 'POST',
      body: '%PDF-',
      headers: { 'content-type': 'application/pdf', 'x-forwarded-for': '192.0.2.10' },
    });
    expect(raw.status).toBe(415);
    const limited = await checkForm(new Blob([new Uint8Array(Buffer.from('%PDF-'))]), '192.0.2.10');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many checks from your address.');
  });

  it('shares its budget with POST /api/v1/verify', async () => {
    const unsigned = new Uint8Array(Buffer.from('%PDF-1.4\n%%EOF\n'));
    for (let i = 0; i < 3; i++)
      await fetch(`${service.url}/api/v1/verify`, {
        method: 'POST',
        body: unsigned,
        headers: { 'content-type': 'application/pdf', 'x-forwarded-for': '192.0.2.12' },
      });
    expect((await checkForm(new Blob([unsigned]), '192.0.2.12')).status).toBe(429);
  });
});
