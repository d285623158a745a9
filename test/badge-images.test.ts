import { createCanvas } from '@napi-rs/canvas';
import { PNG as PngImage } from 'pngjs';
import { qrPng } from './support/qr-png.js';
import { BADGE_IMAGE_MAX_BYTES, BADGE_IMAGE_MAX_SIDE, declaredImageSize } from '../src/badges/badge-image-limits.js';
import { factories } from './support/factories.js';
import { pngBytes, uploadedUuid } from './support/files.js';
import { iTXtText, pngChunks, isOpenBadgesText } from './support/open-badges.js';
import { type ApiClient, signIn, startTestService, type TestService } from './support/service.js';

let service: TestService;
let acme: ApiClient;

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off' });
  acme = await signIn(service, 'acme');
});
afterAll(() => service.stop());

const uploaded = (bytes: Uint8Array, name: string) => uploadedUuid(acme, bytes, name);

const svg = (attributes: string) =>
  Buffer.from(`<?xml version="1.0"?>\n<!-- ${Math.random()} -->\n<svg xmlns="http://www.w3.org/2000/svg" ${attributes}><rect/></svg>\n`);

const badged = (badgeImage: string) =>
  acme.rest('POST', '/institutions', {
    name: 'Badged',
    country: 'BR',
    is_badges_enabled: true,
    badge_image_uuid: badgeImage,
    email: 'registrar@badged.example',
  });

describe('the size an image declares', () => {
  it('reads a PNG IHDR and an SVG root’s width and height, in CSS pixels, else its viewBox', () => {
    expect(declaredImageSize(pngBytes('x', 300, 200), 'image/png')).toEqual({ width: 300, height: 200 });
    expect(declaredImageSize(Buffer.from('\x89PNG\r\n\x1a\n'), 'image/png')).toBeNull();
    expect(declaredImageSize(svg('width="64" height="32px"'), 'image/svg+xml')).toEqual({ width: 64, height: 32 });
    expect(declaredImageSize(svg("width='1in' height='72pt'"), 'image/svg+xml')).toEqual({ width: 96, height: 96 });
    expect(declaredImageSize(svg('width="100%" viewBox="0 0 5000, 10"'), 'image/svg+xml')).toEqual({ width: 5000, height: 10 });
    expect(declaredImageSize(svg(''), 'image/svg+xml')).toBeNull();
  });

  it('reads a JPEG frame header past its metadata segments, and null for a JPEG cut before its frame', () => {
    const canvas = createCanvas(321, 123);
    canvas.getContext('2d').fillRect(0, 0, 10, 10);
    const jpeg = canvas.encodeSync('jpeg', 80);
    // An APP1 segment of 1000 bytes before the rest, as EXIF would sit.
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0x03, 0xea]), Buffer.alloc(1000)]);
    const withMetadata = Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
    expect(declaredImageSize(withMetadata, 'image/jpeg')).toEqual({ width: 321, height: 123 });
    expect(declaredImageSize(withMetadata.subarray(0, 600), 'image/jpeg')).toBeNull();
  });
});

describe('badge images at use', () => {
  it('refuses with 422 on badge_image_uuid a PNG or SVG over 2048×2048 pixels or over 2 MB; accepts one within', async () => {
    const wide = await uploaded(pngBytes('wide', BADGE_IMAGE_MAX_SIDE + 1, 10), 'wide.png');
    expect((await badged(wide)).body.errors).toEqual({
      badge_image_uuid: ['The badge image uuid must not be larger than 2048×2048 pixels (it is 2049×10).'],
    });
    const tall = await uploaded(svg('viewBox="0 0 100 20000"'), 'tall.svg');
    expect((await badged(tall)).status).toBe(422);

    const heavy = await uploaded(Buffer.concat([pngBytes('heavy', 64, 64), Buffer.alloc(BADGE_IMAGE_MAX_BYTES)]), 'heavy.png');
    const refused = await badged(heavy);
    expect(refused.status).toBe(422);
    expect(refused.body.errors.badge_image_uuid).toEqual([expect.stringMatching(/^The badge image uuid must not be larger than 2 MB/)]);

    // Turning badges on later with an oversized image is refused the same way.
    const plain = (await acme.rest('POST', '/institutions', { name: 'Later', country: 'BR' })).body.data;
    expect(
      (await acme.rest('PATCH', `/institutions/${plain.uuid}`, { is_badges_enabled: true, badge_image_uuid: wide, email: 'registrar@plain.example' })).status,
    ).toBe(422);

    const fine = await uploaded(await qrPng('fine'), 'fine.png');
    expect((await badged(fine)).status).toBe(201);
    const fineSvg = await uploaded(svg('width="2048" height="2048"'), 'fine.svg');
    expect((await badged(fineSvg)).status).toBe(201);
  });
});

describe('baked images', () => {
  const imageOf = async (url: string) => {
    const response = await fetch(url);
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  const bakedAssertion = (png: Buffer) => JSON.parse(iTXtText(pngChunks(png).find(isOpenBadgesText)!).text) as Record<string, any>;

  it('are baked once per certificate and badge image, served from storage afterwards, and follow a new badge image and revocation', async () => {
    const make = factories(acme);
    const first = await uploaded(await qrPng('first badge'), 'first.png');
    const institution = (await badged(first)).body.data;
    const course = await make.course({ institution_uuid: institution.uuid });
    const certificate = await make.certificate({ institution_uuid: institution.uuid, course_uuid: course.uuid });
    const url = `${service.url}/ob/v2/assertions/${certificate.uuid}/image.png`;
    const credentialUrl = `${service.url}/ob/v3/credentials/${certificate.uuid}/image.png`;

    const baked = await imageOf(url);
    expect(baked.status).toBe(200);
    expect(bakedAssertion(baked.bytes).id).toBe(`http://credentials.test/ob/v2/assertions/${certificate.uuid}`);
    const credential = await imageOf(credentialUrl);
    expect(credential.status).toBe(200);

    // A new badge image is a new bake: the image changes, the assertion in it stays.
    const second = await uploaded(await qrPng('second badge, a longer text'), 'second.png');
    expect((await acme.rest('PATCH', `/institutions/${institution.uuid}`, { badge_image_uuid: second })).status).toBe(200);
    const rebaked = await imageOf(url);
    expect(rebaked.status).toBe(200);
    expect(rebaked.bytes.equals(baked.bytes)).toBe(false);
    expect(PngImage.sync.read(rebaked.bytes).width).toBe(PngImage.sync.read(Buffer.from(await qrPng('second badge, a longer text'))).width);
    expect(bakedAssertion(rebaked.bytes)).toEqual(bakedAssertion(baked.bytes));
    const recredential = await imageOf(credentialUrl);
    expect(recredential.bytes.equals(credential.bytes)).toBe(false);
    const [{ count }] = await service.orm.em
      .getConnection()
      .execute<{ count: string }[]>(`select count(*) from baked_badge_images where certificate_uuid = ?`, [certificate.uuid]);
    expect(Number(count)).toBe(2);

    // Without a single badge worker, what was baked is still served, byte for byte.
    await service.runtime.badgeWorkers.close();
    expect(await imageOf(url)).toEqual(rebaked);
    expect(await imageOf(credentialUrl)).toEqual(recredential);

    // A revoked assertion is never served from storage: 410 and the revoked stub.
    expect((await acme.rest('POST', `/certificates/${certificate.uuid}/revoke`, { reason: 'Issued in error.' })).status).toBe(200);
    const revoked = await fetch(url);
    expect(revoked.status).toBe(410);
    expect(await revoked.json()).toMatchObject({ revoked: true });
  });
});
