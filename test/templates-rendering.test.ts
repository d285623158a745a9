/**
 * Certificates drawn from their template's layout (CONTRACT "Rendering"): issued without a file,
 * checked the way a recipient's tools see them — poppler's text boxes, pdfsig, a QR decoder.
 */
import { jest } from '@jest/globals';
import { createCanvas } from '@napi-rs/canvas';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { factories, type Factories } from './support/factories.js';
import { uploadedUuid } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { renderPage, solidPng, wordBoxes, type WordBox } from './support/poppler.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(90_000);

const installed = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const MM = 72 / 25.4;

let service: TestService;
let acme: ApiClient;
let make: Factories;
let directory: string;

beforeAll(async () => {
  service = await startTestService();
  acme = await signIn(service, 'acme');
  make = factories(acme);
  directory = mkdtempSync(join(tmpdir(), 'rendering-'));
});
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await service.stop();
});

const uploaded = (bytes: Uint8Array, name: string) => uploadedUuid(acme, bytes, name);

async function download(uuid: string): Promise<Buffer> {
  const response = await fetch(`${service.url}/api/v1/files/${uuid}/download`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const fileOf = (certificate: any, type: string) => certificate.files.find((file: { type: string }) => file.type === type);

/** The name box of the layouts below: 20 mm from the left, 257 mm wide, its top 80 mm from the page's top. */
const NAME_BOX = { x: 20, y: 80, width: 257 };
const nameElement = (fields: Record<string, unknown> = {}) => ({
  type: 'text',
  text: '{{student.name}}',
  ...NAME_BOX,
  font_size: 28,
  font: 'NotoSans-Bold',
  align: 'center',
  ...fields,
});

function layout(background: unknown, extra: unknown[] = []) {
  return {
    page: { size: 'A4', orientation: 'landscape' },
    background,
    elements: [
      { type: 'text', text: 'This certifies that', x: 20, y: 65, width: 257, font_size: 14, align: 'center', color: '#444444' },
      nameElement(),
      {
        type: 'text',
        text: 'completed {{course.name}} ({{course.workload}} h) on {{issued_at|date}} — {{attributes.honours}}',
        x: 20,
        y: 105,
        width: 257,
        font_size: 12,
        align: 'center',
      },
      { type: 'qr', x: 250, y: 165, size: 30 },
      { type: 'line', x: 60, y: 100, x2: 237, y2: 100, thickness: 1, color: '#b08d3c' },
      ...extra,
    ],
  };
}

/** A JPEG of one colour, as a scanner or a photo editor would send it. */
function solidJpeg(width: number, height: number, fill: string): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = fill;
  context.fillRect(0, 0, width, height);
  return canvas.encodeSync('jpeg', 90);
}

/** A TrueType face no bundled family is: Liberation Sans Italic, shipped by pdfjs-dist. */
const uploadedTtf = () => readFileSync(createRequire(import.meta.url).resolve('pdfjs-dist/standard_fonts/LiberationSans-Italic.ttf'));

/** Issues a certificate without a file from a new template with `design_config`, for a student with these fields. */
async function issueDrawn(
  design_config: unknown,
  student: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  templateFields: Record<string, unknown> = {},
) {
  const institution = await make.institution({ name: 'Universidade Federal' });
  const template = await make.template({ institution_uuid: institution.uuid, design_config, ...templateFields });
  const course = await make.course({ institution_uuid: institution.uuid, name: 'Data Engineering', workload: 360 });
  const response = await acme.rest('POST', '/certificates', {
    institution_uuid: institution.uuid,
    course_uuid: course.uuid,
    student_uuid: (await make.student(student)).uuid,
    template_uuid: template.uuid,
    attributes: { honours: 'cum laude' },
    finish: true,
    ...extra,
  });
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return response.body.data;
}

/** What ZBar reads on the first page rendered at 150 dpi. */
function zbarimg(pdf: Uint8Array): string {
  const path = join(directory, `zbar-${Math.random()}.pdf`);
  writeFileSync(path, pdf);
  spawnSync('pdftoppm', ['-r', '150', '-f', '1', '-l', '1', '-singlefile', '-png', path, `${path}-page`]);
  return spawnSync('zbarimg', ['--quiet', `${path}-page.png`], { encoding: 'utf8' }).stdout.trim();
}

/** Words of the first page's line whose text contains `piece`, and that line's words. */
function lineWith(words: WordBox[], piece: string): WordBox[] {
  const hit = words.find((word) => word.text.includes(piece));
  expect(hit).toBeDefined();
  return words.filter((word) => word.page === 0 && Math.abs(word.yMin - hit!.yMin) < 1);
}

function expectInsideNameBox(line: WordBox[], verticalSlack = 3): void {
  const left = Math.min(...line.map((word) => word.xMin));
  const right = Math.max(...line.map((word) => word.xMax));
  expect(left).toBeGreaterThanOrEqual(NAME_BOX.x * MM - 0.5);
  expect(right).toBeLessThanOrEqual((NAME_BOX.x + NAME_BOX.width) * MM + 0.5);
  expect(Math.abs(line[0]!.yMin - NAME_BOX.y * MM)).toBeLessThan(verticalSlack);
  // Centred in the box.
  expect(Math.abs((left + right) / 2 - (NAME_BOX.x + NAME_BOX.width / 2) * MM)).toBeLessThan(1);
}

describe('certificates drawn from the template', () => {
  it('draws a certificate on a PDF background with the social name in its box, signs it (pdfsig), and its QR leads to the verification page', async () => {
    const background = await uploaded(await diplomaPdf('Ornamental border'), 'border.pdf');
    const logo = await uploaded(solidPng(60, 30, [20, 60, 140]), 'logo.png');
    const certificate = await issueDrawn(layout({ file_uuid: background }, [{ type: 'image', file_uuid: logo, x: 20, y: 15, width: 40 }]), {
      name: 'Maria Registered Silva',
      social_name: 'Ana Chosen Silva',
    });
    expect(certificate.status).toBe('issued');
    const source = fileOf(certificate, 'source');
    expect(source).toBeDefined();
    expect((await acme.rest('GET', `/files/${source.uuid}`)).body.data.original_name).toBe(`certificate-${certificate.uuid}.pdf`);

    const signed = await download(fileOf(certificate, 'certificate').uuid);
    const { pages, words } = await wordBoxes(signed);
    expect(pages[0]).toEqual({ width: expect.closeTo(841.89, 1), height: expect.closeTo(595.28, 1) });
    const text = words.map((word) => word.text).join(' ');
    expect(text).toContain('Ana Chosen Silva');
    expect(text).not.toContain('Registered');
    expect(text).toContain('Ornamental border');
    expect(text).toMatch(/completed Data Engineering \(360 h\) on \w+ \d{1,2}, \d{4} — cum laude/);
    expectInsideNameBox(lineWith(words, 'Chosen'));

    // The template's QR code and the stamp's, placed clear of it, both lead to the verification page (jsQR reads one code per image).
    expect(zbarimg(signed).split('\n')).toEqual([`QR-Code:${certificate.public_verification_url}`, `QR-Code:${certificate.public_verification_url}`]);
    if (installed('pdfsig')) {
      const path = join(directory, `${certificate.uuid}.pdf`);
      writeFileSync(path, signed);
      const result = spawnSync('pdfsig', [path], { encoding: 'utf8' });
      expect(result.stdout).toContain('Signature is Valid.');
      expect(result.stdout).toContain('Total document signed');
    }
    // The drawn page is held like an upload: deleting it is refused.
    expect((await acme.rest('DELETE', `/files/${source.uuid}`)).status).toBe(409);
  });

  it('draws on a PNG background and shrinks a long name to fit its box', async () => {
    const background = await uploaded(solidPng(297, 210, [250, 244, 225]), 'paper.png');
    const long = 'Maximiliana Josefina Wilhelmina Alexandrina von Hohenzollern-Sigmaringen de Bragança e Bourbon';
    const certificate = await issueDrawn(layout({ file_uuid: background }), { name: long });
    const signed = await download(fileOf(certificate, 'certificate').uuid);
    const { words } = await wordBoxes(signed);
    const line = lineWith(words, 'Maximiliana');
    expect(line.map((word) => word.text).join(' ')).toBe(long);
    expectInsideNameBox(line);
    const height = line[0]!.yMax - line[0]!.yMin;
    expect(height).toBeLessThan(28 * 1.2);
    const page = await renderPage(signed, 1, 72);
    expect(page.pixel(5, 5)).toEqual([250, 244, 225]);
  });

  it('draws on a JPEG the template path names (files/{uuid}), with a JPEG logo and the name in an uploaded TrueType font', async () => {
    const paper = await uploaded(solidJpeg(1190, 842, '#e8f0ff'), 'paper.jpg');
    const logo = await uploaded(solidJpeg(200, 100, '#203060'), 'logo.jpg');
    const font = await uploaded(uploadedTtf(), 'LiberationSans-Italic.ttf');
    const design = layout(undefined, [{ type: 'image', file_uuid: logo, x: 20, y: 15, width: 40 }]);
    (design.elements[1] as Record<string, unknown>).font = `files/${font}`;
    const certificate = await issueDrawn(design, { name: 'Beatriz Uploaded Face' }, {}, { path: `files/${paper.toUpperCase()}` });
    const signed = await download(fileOf(certificate, 'certificate').uuid);

    const { words } = await wordBoxes(signed);
    const line = lineWith(words, 'Beatriz');
    expect(line.map((word) => word.text).join(' ')).toBe('Beatriz Uploaded Face');
    expectInsideNameBox(line);
    const path = join(directory, `${certificate.uuid}.pdf`);
    writeFileSync(path, signed);
    // The name is set in the uploaded face, embedded as a subset tagged ABCDEF+ (ISO 32000-1 §9.6.4: pdffonts'
    // emb, sub and uni columns; the whole PDF is smaller than the font file); the rest in Noto Sans.
    const fonts = spawnSync('pdffonts', [path], { encoding: 'utf8' }).stdout;
    expect(fonts).toMatch(/[A-Z]{6}\+LiberationSans-Italic\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
    expect(fonts).toMatch(/[A-Z]{6}\+NotoSans-Regular/);
    expect(fonts).not.toMatch(/NotoSans-Bold/);
    expect(signed.length).toBeLessThan(uploadedTtf().length);
    const page = await renderPage(signed, 1, 72);
    const [r, g, b] = page.pixel(5, 5);
    expect(Math.abs(r! - 0xe8) + Math.abs(g! - 0xf0) + Math.abs(b! - 0xff)).toBeLessThan(8);
    if (installed('pdfsig')) expect(spawnSync('pdfsig', [path], { encoding: 'utf8' }).stdout).toContain('Signature is Valid.');
    // The template's QR code and the signature stamp's (placed clear of the drawing) say the same address.
    if (installed('zbarimg')) expect(new Set(zbarimg(signed).trim().split('\n'))).toEqual(new Set([`QR-Code:${certificate.public_verification_url}`]));

    // What the template draws is held: neither the document its path names nor its font can be deleted.
    expect((await acme.rest('DELETE', `/files/${paper}`)).status).toBe(409);
    expect((await acme.rest('DELETE', `/files/${font}`)).status).toBe(409);
  });

  it('refuses files a template cannot draw, each under its path: too many pixels, an unreadable font, a font as an image', async () => {
    const institution = await make.institution();
    const huge = await uploaded(solidJpeg(5000, 20, '#ffffff'), 'huge.jpg');
    const brokenFont = await uploaded(Buffer.concat([Buffer.from('OTTO', 'latin1'), Buffer.alloc(2000, 7)]), 'broken.otf');
    const font = await uploaded(uploadedTtf(), 'face.ttf');
    const design = layout({ file_uuid: huge }, [{ type: 'image', file_uuid: font, x: 20, y: 15, width: 40 }]);
    (design.elements[1] as Record<string, unknown>).font = `files/${brokenFont}`;
    const response = await acme.rest('POST', '/certificate-templates', {
      institution_uuid: institution.uuid,
      name: 'Refused',
      version: '1',
      path: `files/${font}`,
      design_config: design,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'design_config.background.file_uuid': ['The image must not be larger than 4096×4096 pixels (it is 5000×20).'],
      'design_config.elements[1].font': ['The font cannot be read as a TrueType or OpenType file.'],
      'design_config.elements[5].file_uuid': ['The file must be of type: png, jpg.'],
      path: ['The file must be of type: pdf, png, jpg.'],
    });
  });

  it('draws Vietnamese, Chinese, Korean and Arabic names with the bundled Noto faces', async () => {
    for (const name of ['Nguyễn Thị Ánh Dương', '王小明', '김민준', 'محمد عبد الله']) {
      const certificate = await issueDrawn(layout({ color: '#ffffff' }), { name });
      const { words } = await wordBoxes(await download(fileOf(certificate, 'certificate').uuid));
      const line = lineWith(words, [...name][0]!);
      // pdftotext -bbox gives words as drawn, left to right: an Arabic word's letters come reversed and its first word rightmost.
      const logical = (text: string) => (/[\u0600-\u06ff]/.test(text) ? [...text].reverse().join('') : text);
      expect(line.map((word) => logical(word.text)).sort()).toEqual(name.split(' ').sort());
      // Poppler sizes an Arabic word's box by Noto Sans Arabic's own (deeper) metrics, not the line's Noto Sans ones.
      expectInsideNameBox(line, logical(name) === name ? 3 : 12);
    }
  });
});

describe('when a certificate may omit its file', () => {
  it('applies the institution default template when none is named, over GraphQL too', async () => {
    const institution = await make.institution();
    await make.template({ institution_uuid: institution.uuid, is_default: true, design_config: layout({ color: '#fdfdf8' }) });
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student({ name: 'Default Template Person' });
    const response = await acme.graphql('mutation($input: CertificateInput!) { createCertificate(input: $input) { uuid status files { type uuid } } }', {
      input: { institutionUuid: institution.uuid, courseUuid: course.uuid, studentUuid: student.uuid, finish: true },
    });
    expect(response.body.errors).toBeUndefined();
    const created = response.body.data.createCertificate;
    expect(created.status).toBe('issued');
    const signed = await download(created.files.find((file: { type: string }) => file.type === 'certificate').uuid);
    expect((await wordBoxes(signed)).words.map((word) => word.text).join(' ')).toContain('Default Template Person');
  });

  it('keeps file_uuid required when the template has no layout, or there is no template', async () => {
    const institution = await make.institution();
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student();
    const base = { institution_uuid: institution.uuid, course_uuid: course.uuid, student_uuid: student.uuid, finish: true };
    const required = { file_uuid: ['The file uuid field is required unless the template has a layout (design_config.elements).'] };
    const none = await acme.rest('POST', '/certificates', base);
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual(required);
    const colours = await make.template({ institution_uuid: institution.uuid, design_config: { colors: { primary: '#112233' } } });
    const withoutLayout = await acme.rest('POST', '/certificates', { ...base, template_uuid: colours.uuid, finish: false });
    expect(withoutLayout.status).toBe(422);
    expect(withoutLayout.body.errors).toEqual(required);
  });

  it('keeps a draft without a file, and draws it when it is issued', async () => {
    const institution = await make.institution();
    const template = await make.template({ institution_uuid: institution.uuid, design_config: layout({ color: '#ffffff' }) });
    const course = await make.course({ institution_uuid: institution.uuid });
    const student = await make.student({ name: 'Drafted Person' });
    const draft = await acme.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      template_uuid: template.uuid,
    });
    expect(draft.status).toBe(201);
    expect(draft.body.data).toMatchObject({ status: 'draft', files: [] });
    const issued = await acme.graphql('mutation($uuid: ID!) { issueCertificate(uuid: $uuid) { status files { type uuid } } }', { uuid: draft.body.data.uuid });
    expect(issued.body.data.issueCertificate.status).toBe('issued');
    expect(issued.body.data.issueCertificate.files.map((file: { type: string }) => file.type)).toEqual(['source', 'certificate', 'transcript']);
  });
});
