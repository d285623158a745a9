import { jest } from '@jest/globals';
import { factories, type Factories } from './support/factories.js';
import { uploadedUuid } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { imagesOf, pdftotextPages, renderPage, solidPng } from './support/poppler.js';
import { qrOnPage } from './support/qr.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(60_000);

let service: TestService;
let acme: ApiClient;
let make: Factories;

beforeAll(async () => {
  service = await startTestService();
  acme = await signIn(service, 'acme');
  make = factories(acme);
});
afterAll(() => service.stop());

const uploaded = (bytes: Uint8Array, name: string) => uploadedUuid(acme, bytes, name);

describe('template design in generated documents', () => {
  it('refuses design_config colours that are not #rrggbb under known keys, and keeps the rest of design_config as given', async () => {
    const institution = await make.institution();
    const attempt = (design_config: unknown) =>
      acme.rest('POST', '/certificate-templates', { name: 'T', version: '1', path: '/t.pdf', institution_uuid: institution.uuid, design_config });
    const wrong = await attempt({ colors: { primary: 'navy', secondary: '#112233' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.design_config).toEqual([
      'The design config colors.primary must be a "#rrggbb" colour.',
      'The design config colors key "secondary" is unknown; use primary, accent, text.',
    ]);
    expect((await attempt({ colors: ['#112233'] })).status).toBe(422);
    const fine = await attempt({ colors: { primary: '#0B3D91', accent: '#c9a227' }, canvas: { width: 1200 } });
    expect(fine.status).toBe(201);
    expect(fine.body.data.design_config).toEqual({ colors: { primary: '#0B3D91', accent: '#c9a227' }, canvas: { width: 1200 } });
  });

  it("issues a transcript in the template's colours with the institution's badge image as logo, its QR leading to the verification page", async () => {
    const badge = await uploaded(solidPng(80, 80, [230, 120, 20]), 'badge.png');
    const institution = await make.institution({ name: 'Đại học Quốc gia Hà Nội', badge_image_uuid: badge });
    const template = await make.template({ institution_uuid: institution.uuid, design_config: { colors: { primary: '#0b3d91' } } });
    const course = await make.course({ institution_uuid: institution.uuid, name: 'Khoa học máy tính' });
    const student = await make.student({ name: 'Nguyễn Thị Ánh Dương' });
    const response = await acme.rest('POST', '/certificates', {
      institution_uuid: institution.uuid,
      course_uuid: course.uuid,
      student_uuid: student.uuid,
      template_uuid: template.uuid,
      file_uuid: await uploaded(await diplomaPdf('Diploma'), 'diploma.pdf'),
      finish: true,
    });
    expect(response.status).toBe(201);
    const certificate = response.body.data;
    const file = certificate.files.find((entry: { type: string }) => entry.type === 'transcript');
    const transcript = Buffer.from(await (await fetch(`${service.url}/api/v1/files/${file.uuid}/download`)).arrayBuffer());

    const text = (await pdftotextPages(transcript)).join('\n');
    for (const expected of [
      'Đại học Quốc gia Hà Nội',
      'Khoa học máy tính',
      'Nguyễn Thị Ánh Dương',
      `Verify at ${certificate.public_verification_url}`,
      certificate.uuid,
    ]) {
      expect(text).toContain(expected);
    }
    expect(await imagesOf(transcript)).toEqual([{ page: 1, width: 80, height: 80 }]);
    const page = await renderPage(transcript, 1, 72);
    expect(page.pixel(300, 3)).toEqual([0x0b, 0x3d, 0x91]);
    expect(page.pixel(48 + 32, 44 + 32)).toEqual([230, 120, 20]);
    const pages = await pdftotextPages(transcript);
    expect(await qrOnPage(transcript, pages.findIndex((content) => content.includes('Verify this transcript')) + 1)).toBe(certificate.public_verification_url);
  });
});
