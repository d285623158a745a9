import { createHash } from 'node:crypto';
import { factories } from './support/factories.js';
import { upload } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

let service: TestService;
let api: ApiClient;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  api = await signIn(service, 'acme');
});
afterAll(() => service.stop());

/** Directive name → its sources. */
function policy(header: string | null): Map<string, string[]> {
  const directives = (header ?? '')
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .filter((words) => words[0]);
  return new Map(directives.map(([name, ...sources]) => [name!, sources]));
}

function expectBaseline(headers: Headers): void {
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(policy(headers.get('content-security-policy')).get('frame-ancestors')).toEqual(["'none'"]);
}

async function issuedCertificate(): Promise<{ uuid: string }> {
  const make = factories(api);
  const institution = await make.institution();
  const course = await make.course({ institution_uuid: institution.uuid });
  const student = await make.student();
  const file = (await upload(api, [[await diplomaPdf('Headers'), 'diploma.pdf']])).body.data[0].uuid;
  const response = await api.rest('POST', '/certificates', {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: student.uuid,
    file_uuid: file,
    finish: true,
  });
  expect(response.status).toBe(201);
  return response.body.data;
}

describe('security headers', () => {
  it('come on JSON responses, with a policy that allows nothing and no HSTS over http', async () => {
    for (const response of [await api.rest('GET', '/institutions'), await api.rest('GET', '/nowhere'), await api.graphql('{ viewer { clientId } }')]) {
      expectBaseline(response.headers);
      expect(policy(response.headers.get('content-security-policy')).get('default-src')).toEqual(["'none'"]);
      expect(response.headers.get('strict-transport-security')).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('admit exactly the verification page’s own stylesheet, by hash, so it still renders styled', async () => {
    const certificate = await issuedCertificate();
    const response = await fetch(`${service.url}/verify/${certificate.uuid}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expectBaseline(response.headers);
    const csp = policy(response.headers.get('content-security-policy'));
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toBeUndefined();
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
    expect(styles).toHaveLength(1);
    expect(csp.get('style-src')).toEqual(styles);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).toContain('class="state tone-good"');
  });

  it('leave Apollo Sandbox loadable in development: its page is served and only its own meta policy limits scripts', async () => {
    const response = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('https://embeddable-sandbox.cdn.apollographql.com/');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'nonce-/);
    expectBaseline(response.headers);
    const csp = policy(response.headers.get('content-security-policy'));
    expect([csp.get('default-src'), csp.get('script-src'), csp.get('style-src')]).toEqual([undefined, undefined, undefined]);
  });

  it('add HSTS when the public base URL is https', async () => {
    const https = await startTestService({ PUBLIC_BASE_URL: 'https://credentials.test' });
    try {
      const response = await fetch(`${https.url}/healthz`);
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expectBaseline(response.headers);
    } finally {
      await https.stop();
    }
  });
});
