import { factories } from './support/factories.js';

type Row = Record<string, any>;
import { upload } from './support/files.js';
import { PUBLIC_BASE_URL as BASE, signIn, startTestService, type ApiClient, type TestService } from './support/service.js';
import { until } from './support/wait.js';

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let valid: Row;
let graded: Row;
let revoked: Row;

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const BADGE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#1f4fd1"/></svg>';

async function uploadFile(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}`);
  return response.body.data[0].uuid;
}

/** An institution with badges, a described course with two modules, a student enrolled with a grade; its issued certificate. */
async function issued(api: ApiClient, institutionFields: Record<string, unknown> = {}) {
  const make = factories(api);
  const badge = await uploadFile(api, Buffer.from(BADGE_SVG), 'badge.svg');
  const institution = await make.institution({ name: 'Universidad Abierta', is_badges_enabled: true, badge_image_uuid: badge, ...institutionFields });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', description: 'Pipelines, streams and warehouses.' });
  const sql = await make.module({ institution_uuid: institution.uuid, name: 'SQL Foundations', code: 'SQL-1', workload: 60, credits: 4 });
  const streams = await make.module({ institution_uuid: institution.uuid, name: 'Stream Processing', workload: 40 });
  await api.rest('POST', `/courses/${course.uuid}/attach/modules`, { modules: [{ module_uuid: sql.uuid }, { module_uuid: streams.uuid }] });
  const student = await make.student({ name: 'Lucía Fernández' });
  const enrollment = await make.enrollment({ student_uuid: student.uuid, course_uuid: course.uuid, grade: 9.25 });
  return make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, enrollment_uuid: enrollment.uuid });
}

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  acme = await signIn(service, 'acme');
  globex = await signIn(service, 'globex');
  valid = await issued(acme);
  graded = await issued(acme, { is_grade_public: true });
  revoked = await issued(acme);
  const revocation = await acme.rest('POST', `/certificates/${revoked.uuid}/revoke`, { reason: 'Issued in error' });
  expect(revocation.status).toBe(200);
});
afterAll(() => service?.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, { headers: { accept: 'text/html', 'user-agent': BROWSER, ...headers }, redirect: 'manual' });
const pageOf = async (uuid: string, language: string) => (await get(`/verify/${uuid}`, { 'accept-language': language })).text();

describe('the verification page', () => {
  it('speaks Spanish for es-MX and Brazilian Portuguese for pt-PT, with the credential, its modules and how it was verified', async () => {
    const spanish = await get(`/verify/${valid.uuid}`, { 'accept-language': 'de;q=1, es-MX;q=0.9, en;q=0.5' });
    expect(spanish.headers.get('content-language')).toBe('es');
    const html = await spanish.text();
    expect(html).toContain('<html lang="es">');
    for (const text of [
      'Otorgado a',
      'No vence',
      'Sobre esta credencial',
      'Pipelines, streams and warehouses.',
      'SQL-1 · SQL Foundations',
      '60 h · 4 créditos',
      'Cómo se verificó',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain(`${BASE}/ob/v3/issuers/`); // the issuer's DID document
    expect(html).toMatch(/\/ob\/v3\/issuers\/[^"]+\/status\/1/); // the status list
    expect(html).toContain(`href="${BASE}/ob/v3/credentials/${valid.uuid}"`);
    expect(html).toContain(`/ob/v3/credentials/${valid.uuid}/image.svg`);
    expect(html).toMatch(/<img class="credential-image" src="[^"]+\/api\/v1\/files\/[^"]+\/download" alt="Logotipo de Universidad Abierta"/);
    for (const target of ['linkedin', 'x', 'facebook', 'email', 'linkedin-profile']) expect(html).toContain(`/verify/${valid.uuid}/share/${target}?lang=es`);
    expect(html).toContain('&lt;a href=&quot;'); // the embed snippet, escaped in its textarea
    expect(html).toContain(`<meta property="og:image" content="${BASE}/verify/${valid.uuid}/card.png?lang=es"/>`);
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image"/>');
    expect(html).toContain(
      `<link rel="alternate" type="application/json+oembed" href="${BASE}/oembed?url=${encodeURIComponent(`${BASE}/verify/${valid.uuid}`)}&amp;format=json"`,
    );
    expect(html).not.toContain('Calificación final'); // the institution does not publish grades

    const portuguese = await pageOf(valid.uuid, 'pt-PT');
    expect(portuguese).toContain('<html lang="pt-BR">');
    expect(portuguese).toContain('Não expira');
    expect(portuguese).toContain('Como isto foi verificado');
  });

  it('shows the grade only where the institution publishes grades', async () => {
    const html = await pageOf(graded.uuid, 'en');
    expect(html).toMatch(/<dt>Final grade<\/dt><dd>9\.25<\/dd>/);
  });

  it('says first that a revoked certificate is revoked, and offers no share, embed, QR or PDF download', async () => {
    const html = await pageOf(revoked.uuid, 'es');
    const status = html.indexOf('role="status"');
    expect(status).toBeGreaterThan(-1);
    expect(status).toBeLessThan(html.indexOf('<h1>'));
    expect(html).toContain('Revocado');
    expect(html).toContain('No se ofrece compartir ni descargar');
    expect(html).not.toMatch(/\/share\/|\/api\/v1\/files\/[^"]+\/download" download|<svg|embed-code|\/ob\/v3\/credentials\//);
    expect((await get(`/verify/${revoked.uuid}/share/linkedin`)).status).toBe(404);
    expect((await get(`/oembed?url=${encodeURIComponent(`${BASE}/verify/${revoked.uuid}`)}`)).status).toBe(404);
  });
});

describe('link previews', () => {
  it('og:image is a 1200 × 630 PNG, public and cacheable, the same bytes again', async () => {
    const response = await get(`/verify/${valid.uuid}/card.png?lang=pt-BR`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const png = Buffer.from(await response.arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    const again = await get(`/verify/${valid.uuid}/card.png?lang=pt-BR`, { 'if-none-match': response.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect((await get('/verify/01a1fbd9-0000-7000-8000-000000000000/card.png')).status).toBe(404);
  });

  it('oEmbed describes a valid page as rich JSON with the embed snippet; other URLs 404, other formats 501', async () => {
    const url = `${BASE}/verify/${valid.uuid}`;
    const response = await get(`/oembed?url=${encodeURIComponent(url)}&format=json`, { accept: 'application/json', 'accept-language': 'es' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({
      version: '1.0',
      type: 'rich',
      title: 'Data Engineering · Lucía Fernández',
      provider_name: 'Universidad Abierta',
      width: 600,
      height: 315,
      thumbnail_url: `${url}/card.png?lang=es`,
      thumbnail_width: 1200,
      thumbnail_height: 630,
    });
    expect(body.html).toBe(
      `<a href="${url}"><img src="${url}/card.png?lang=es" alt="Tarjeta de la credencial: Data Engineering, otorgada a Lucía Fernández" width="600" height="315"></a>`,
    );
    expect((await get(`/oembed?url=${encodeURIComponent('https://elsewhere.example/verify/' + valid.uuid)}`)).status).toBe(404);
    expect((await get(`/oembed?url=${encodeURIComponent(url)}&format=xml`)).status).toBe(501);
  });

  it('/favicon.ico is an icon', async () => {
    const response = await get('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    const ico = Buffer.from(await response.arrayBuffer());
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4), ico[6], ico[7]]).toEqual([0, 1, 1, 48, 48]);
    expect(ico.subarray(22, 26).toString('latin1')).toBe('\x89PNG');
  });
});

describe('engagement', () => {
  const engagement = async (api: ApiClient, uuid: string) => api.rest('GET', `/certificates/${uuid}/engagement`);

  it('counts people by day (page views, downloads, fetches, share and LinkedIn clicks), never bots, and tells only the owner', async () => {
    const fresh = await issued(acme);
    const { uuid } = fresh;
    const pdf = fresh.files.find((file: { type: string }) => file.type === 'certificate')!;
    await get(`/verify/${uuid}`);
    await get(`/verify/${uuid}`);
    await get(`/verify/${uuid}`, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
    await get(`/verify/${uuid}`, { 'user-agent': 'facebookexternalhit/1.1' });
    await get(`/verify/${uuid}`, { 'user-agent': '' });
    await (await get(`/api/v1/files/${pdf.uuid}/download`)).arrayBuffer();
    await (await get(`/ob/v2/assertions/${uuid}/image.svg`)).arrayBuffer();
    await (await get(`/ob/v3/credentials/${uuid}`, { accept: 'application/ld+json' })).arrayBuffer();
    const share = await get(`/verify/${uuid}/share/x?lang=es`);
    expect(share.status).toBe(302);
    expect(share.headers.get('location')).toMatch(/^https:\/\/x\.com\/intent\/post\?text=Obtuve\+Data\+Engineering/);
    const linkedIn = await get(`/verify/${uuid}/share/linkedin-profile`);
    expect(linkedIn.headers.get('location')).toMatch(/^https:\/\/www\.linkedin\.com\/profile\/add\?startTask=CERTIFICATION_NAME/);
    expect((await get(`/verify/${uuid}/share/myspace`)).status).toBe(404);

    const expected = { page_views: 2, pdf_downloads: 1, badge_fetches: 1, credential_fetches: 1, share_clicks: 1, linkedin_adds: 1, wallet_claims: 0 };
    let answer = await engagement(acme, uuid);
    await until(
      async () => {
        answer = await engagement(acme, uuid);
        return JSON.stringify(answer.body.data?.totals) === JSON.stringify(expected);
      },
      'the counts',
      10_000,
    ).catch(() => undefined);
    expect(answer.status).toBe(200);
    expect(answer.body.data.totals).toEqual(expected);
    const today = new Date().toISOString().slice(0, 10);
    expect(answer.body.data.days).toEqual([{ day: today, ...expected }]);

    const graphql = await acme.graphql('query ($uuid: ID!) { certificate(uuid: $uuid) { engagement { totals { pageViews shareClicks } } } }', { uuid });
    expect(graphql.body.data.certificate.engagement.totals).toEqual({ pageViews: 2, shareClicks: 1 });
    expect((await engagement(globex, uuid)).status).toBe(404);

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/credentials_engagement_events_total\{event="page_view"\} [1-9]/);
  });
});
