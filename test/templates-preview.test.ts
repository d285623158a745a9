/**
 * Template previews (issue 33): the layout drawn with sample data or a certificate's data, as PNG or
 * PDF, on the tenant's document workers; only the template's tenant sees it.
 */
import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { factories, type Factories } from './support/factories.js';
import { pdftotextPages } from './support/poppler.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(120_000);

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as Decode;

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;
let make: Factories;
let directory: string;

beforeAll(async () => {
  service = await startTestService();
  acme = await signIn(service, 'acme');
  globex = await signIn(service, 'globex');
  make = factories(acme);
  directory = mkdtempSync(join(tmpdir(), 'preview-'));
});
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await service.stop();
});

const design = {
  page: { size: 'A4', orientation: 'landscape' },
  background: { color: '#f4efe1' },
  elements: [
    { type: 'text', text: '{{institution.name}}', x: 20, y: 20, width: 257, font_size: 18, align: 'center' },
    { type: 'text', text: '{{student.name}}', x: 20, y: 80, width: 257, font_size: 28, font: 'NotoSans-Bold', align: 'center' },
    { type: 'text', text: '{{course.name}} — {{attributes.honours}}', x: 20, y: 110, width: 257, font_size: 12, align: 'center' },
    { type: 'qr', x: 240, y: 150, size: 40 },
  ],
};

async function preview(client: ApiClient, uuid: string, query = '', headers: Record<string, string> = {}) {
  const response = await fetch(`${service.url}/api/v1/certificate-templates/${uuid}/preview${query}`, {
    headers: client.headers({ accept: '*/*', ...headers }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}

function zbarimg(png: Buffer): string {
  const path = join(directory, `${Math.random()}.png`);
  writeFileSync(path, png);
  return spawnSync('zbarimg', ['--quiet', path], { encoding: 'utf8' }).stdout.trim();
}

describe('template previews', () => {
  it('draws the layout with sample data as a PNG by default, and preview_image_path points at it', async () => {
    const institution = await make.institution({ name: 'Instituto Exemplar' });
    const template = await make.template({ institution_uuid: institution.uuid, design_config: design });
    expect(template.preview_image_path).toBe(`/api/v1/certificate-templates/${template.uuid}/preview`);

    const drawn = await preview(acme, template.uuid);
    expect(drawn.status).toBe(200);
    expect(drawn.headers.get('content-type')).toBe('image/png');
    const image = PNG.sync.read(drawn.bytes);
    expect(image.width).toBe(1200);
    expect(Math.round(image.height)).toBe(Math.round((1200 * 210) / 297));
    // The background colour at a corner, and the QR code leading to a sample verification page.
    expect([...image.data.subarray(4 * 5, 4 * 5 + 3)]).toEqual([0xf4, 0xef, 0xe1]);
    const url = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
    expect(url).toMatch(/\/verify\/00000000-0000-4000-8000-000000000000$/);
    if (spawnSync('sh', ['-c', 'command -v zbarimg']).status === 0) expect(zbarimg(drawn.bytes)).toBe(`QR-Code:${url}`);

    // Drawn once per version and data: the ETag answers a revalidation without drawing again.
    const again = await preview(acme, template.uuid, '', { 'if-none-match': drawn.headers.get('etag')! });
    expect(again.status).toBe(304);
  });

  it('draws a PDF by format= or Accept, with sample data or a certificate of the tenant', async () => {
    const institution = await make.institution({ name: 'Instituto Exemplar' });
    const template = await make.template({ institution_uuid: institution.uuid, design_config: design });
    const sample = await preview(acme, template.uuid, '?format=pdf');
    expect(sample.status).toBe(200);
    expect(sample.headers.get('content-type')).toBe('application/pdf');
    const [text] = await pdftotextPages(sample.bytes);
    expect(text).toContain('Instituto Exemplar');
    expect(text).toContain('Maria Exemplo da Silva');
    expect(text).toContain('Sample Course — [honours]');

    const byAccept = await preview(acme, template.uuid, '', { accept: 'application/pdf' });
    expect(byAccept.headers.get('content-type')).toBe('application/pdf');
    expect(byAccept.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const course = await make.course({ institution_uuid: institution.uuid, name: 'Applied Statistics' });
    const student = await make.student({ name: 'João Registered', social_name: 'Joana Preview' });
    const certificate = await make.certificate({
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      attributes: { honours: 'magna cum laude' },
    });
    const real = await preview(acme, template.uuid, `?format=pdf&certificate_uuid=${certificate.uuid}`);
    expect(real.status).toBe(200);
    const [realText] = await pdftotextPages(real.bytes);
    expect(realText).toContain('Joana Preview');
    expect(realText).toContain('Applied Statistics — magna cum laude');
  });

  it('is the tenant’s own: a foreign template or certificate is a 404; no layout is a 409; a wrong Accept is a 406', async () => {
    const template = await make.template({ design_config: design });
    expect((await preview(globex, template.uuid)).status).toBe(404);
    const foreign = await factories(globex).certificate();
    const withForeign = await preview(acme, template.uuid, `?certificate_uuid=${foreign.uuid}`);
    expect(withForeign.status).toBe(404);
    expect(withForeign.json()).toEqual({ message: 'Certificate not found.' });
    expect((await preview(acme, template.uuid, '?format=gif')).status).toBe(422);
    expect((await preview(acme, template.uuid, '', { accept: 'text/html' })).status).toBe(406);
    const plain = await make.template({ design_config: { colors: { primary: '#112233' } } });
    expect(plain.preview_image_path).toBeNull();
    expect((await preview(acme, plain.uuid)).status).toBe(409);
    expect((await fetch(`${service.url}/api/v1/certificate-templates/${template.uuid}/preview`)).status).toBe(401);
  });
});
