import { jest } from '@jest/globals';
import { factories, type Factories } from './support/factories.js';
import { upload, uploadedUuid } from './support/files.js';
import { diplomaPdf } from './support/pdf.js';
import { solidPng } from './support/poppler.js';
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

const BAD_LAYOUT = {
  page: { size: 'A7', orientation: 'sideways' },
  background: { color: 'navy' },
  elements: [
    { type: 'text', text: 'Awarded to {{student.name}}', x: 20, y: 80, width: 257, font_size: 28, font: 'NotoSans-Bold', align: 'center' },
    { type: 'qr', x: 250, y: 170 },
    { type: 'text', text: 'Hello {{student.nickname}} on {{grade|date}}', x: 20, y: 80, font_size: 'big', fontSize: 3 },
    { type: 'circle', x: 1, y: 1 },
    { type: 'image', file_uuid: 'not-a-uuid', x: 900, y: 15, width: 40 },
  ],
};

describe('the layout language of design_config', () => {
  it('refuses a bad layout over REST with every bad path named at once', async () => {
    const institution = await make.institution();
    const response = await acme.rest('POST', '/certificate-templates', {
      name: 'Diploma',
      version: '1',
      path: '/diploma',
      institution_uuid: institution.uuid,
      design_config: BAD_LAYOUT,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'design_config.page.size': [expect.stringContaining('A4')],
      'design_config.page.orientation': ['The orientation field must be one of: landscape, portrait.'],
      'design_config.background.color': ['The color field must be a "#RRGGBB" colour.'],
      'design_config.elements[1].size': ['The size field is required.'],
      'design_config.elements[2].text': [expect.stringContaining('{{student.nickname}} is unknown'), 'The placeholder {{grade}} takes no "date" filter.'],
      'design_config.elements[2].font_size': ['The font_size field must be a number.'],
      'design_config.elements[2]': [expect.stringContaining('The key "fontSize" is not part of a text element')],
      'design_config.elements[3].type': ['The type field must be one of: text, qr, image, line, rect.'],
      'design_config.elements[4].file_uuid': ['The file_uuid field must be a file uuid.'],
      'design_config.elements[4].x': ['The x field must be between 0 and 297.'],
    });
  });

  it('names the same paths over GraphQL, in the design_config as the client wrote it', async () => {
    const institution = await make.institution();
    const response = await acme.graphql('mutation($input: CertificateTemplateInput!) { createCertificateTemplate(input: $input) { uuid } }', {
      input: { name: 'Diploma', version: '1', path: '/diploma', institutionUuid: institution.uuid, designConfig: BAD_LAYOUT },
    });
    const error = response.body.errors[0];
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(Object.keys(error.extensions.errors)).toEqual(
      expect.arrayContaining(['designConfig.page.size', 'designConfig.elements[2].font_size', 'designConfig.elements[4].file_uuid']),
    );
  });

  it('accepts a full layout, and checks the files it draws: live files of the tenant, of a drawable type', async () => {
    const institution = await make.institution();
    const background = await uploaded(await diplomaPdf('Background'), 'background.pdf');
    const logo = await uploaded(solidPng(40, 20, [10, 60, 140]), 'logo.png');
    const layout = (imageUuid: string) => ({
      page: { size: 'A4', orientation: 'landscape' },
      background: { file_uuid: background },
      elements: [
        { type: 'text', text: 'Awarded to {{student.name}} on {{issued_at|date}} ({{attributes.honours}})', x: 20, y: 80, width: 257, font_size: 28 },
        { type: 'qr', x: 250, y: 170, size: 25 },
        { type: 'image', file_uuid: imageUuid, x: 20, y: 15, width: 40 },
        { type: 'line', x: 20, y: 120, x2: 277, y2: 120, thickness: 0.5, color: '#b08d3c' },
        { type: 'rect', x: 5, y: 5, width: 287, height: 200, fill: '#f5f0e1' },
      ],
    });
    const create = (design_config: unknown) =>
      acme.rest('POST', '/certificate-templates', { name: 'Diploma', version: '1', path: '/diploma', institution_uuid: institution.uuid, design_config });

    const fine = await create(layout(logo));
    expect(fine.status).toBe(201);
    expect(fine.body.data.design_config.elements).toHaveLength(5);

    const pdfAsImage = await create(layout(background));
    expect(pdfAsImage.status).toBe(422);
    expect(pdfAsImage.body.errors).toEqual({ 'design_config.elements[2].file_uuid': ['The file must be of type: png, jpg.'] });

    const other = await signIn(service, 'other-tenant');
    const foreign = (await upload(other, [[solidPng(4, 4, [1, 2, 3]), 'foreign.png']])).body.data[0].uuid;
    const unknown = await create(layout(foreign));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ 'design_config.elements[2].file_uuid': ['The selected file uuid is invalid.'] });
  });
});

describe('template versions', () => {
  it('freezes design_config, path and version once a certificate was issued from the template; the same values again and other fields still change', async () => {
    const institution = await make.institution();
    const design_config = { elements: [{ type: 'text', text: '{{student.name}}', x: 20, y: 80 }] };
    const template = await make.template({ institution_uuid: institution.uuid, design_config });
    const changeBefore = await acme.rest('PATCH', `/certificate-templates/${template.uuid}`, { design_config: { ...design_config, page: { size: 'A4' } } });
    expect(changeBefore.status).toBe(200);

    await make.certificate({ institution_uuid: institution.uuid, template_uuid: template.uuid });
    const frozen = await acme.rest('PATCH', `/certificate-templates/${template.uuid}`, { design_config });
    expect(frozen.status).toBe(409);
    expect(frozen.body.message).toMatch(/frozen.*new template/);
    expect((await acme.rest('PATCH', `/certificate-templates/${template.uuid}`, { version: '2.0' })).status).toBe(409);
    const graphql = await acme.graphql('mutation($uuid: ID!) { updateCertificateTemplate(uuid: $uuid, input: { path: "/other" }) { uuid } }', {
      uuid: template.uuid,
    });
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');

    const sameAgain = await acme.rest('PUT', `/certificate-templates/${template.uuid}`, {
      name: 'Renamed',
      version: template.version,
      path: template.path,
      institution_uuid: institution.uuid,
      design_config: { page: { size: 'A4' }, ...design_config },
    });
    expect(sameAgain.status).toBe(200);
    expect(sameAgain.body.data.name).toBe('Renamed');
  });
});

describe('files a template draws', () => {
  it('cannot be deleted while a live template draws them (409, both styles), and can once the template is deleted', async () => {
    const institution = await make.institution();
    const background = await uploaded(await diplomaPdf(`Held background ${Math.random()}`), 'background.pdf');
    const logo = await uploaded(solidPng(12, 12, [200, 10, 10]), 'held-logo.png');
    const template = await make.template({
      institution_uuid: institution.uuid,
      design_config: { background: { file_uuid: background }, elements: [{ type: 'image', file_uuid: logo, x: 10, y: 10, width: 30 }] },
    });
    const refused = await acme.rest('DELETE', `/files/${background}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `The file ${background} is drawn by certificate template ${template.uuid} and cannot be deleted; delete that template first.`,
    );
    const graphql = await acme.graphql('mutation($uuid: ID!) { deleteFile(uuid: $uuid) }', { uuid: logo });
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');

    expect((await acme.rest('DELETE', `/certificate-templates/${template.uuid}`)).status).toBe(204);
    expect((await acme.rest('DELETE', `/files/${background}`)).status).toBe(204);
    expect((await acme.rest('DELETE', `/files/${logo}`)).status).toBe(204);
  });
});
