/**
 * The document worker's cache of a template's prepared graphics (src/documents/layout-file-cache.ts):
 * a background or image is decoded once for many pages, is kept per tenant and content, and the
 * cache stays within its bounds. Drawn with the real renderer and read back with poppler.
 */
import { clearGraphicCache, GRAPHIC_CACHE_LIMITS, graphicCacheStats } from '../src/documents/layout-file-cache.js';
import type { LayoutDrawing, LayoutFile } from '../src/documents/layout-drawing.js';
import { renderLayout } from '../src/documents/layout-renderer.js';
import { diplomaPdf } from './support/pdf.js';
import { imagesOf, renderPage, solidPng } from './support/poppler.js';

const RED: [number, number, number] = [200, 30, 30];
const BLUE: [number, number, number] = [20, 40, 200];

const png = (color: [number, number, number], key: string): LayoutFile => ({ mimeType: 'image/png', bytes: solidPng(400, 300, color), cacheKey: key });

/** An A4 landscape page: `background` stretched over it, `logo` 60 mm wide at the top left, the name in the middle. */
function drawing(files: { background: LayoutFile; logo: LayoutFile }, name: string): LayoutDrawing {
  return {
    layout: {
      page: { width: 297, height: 210 },
      background: { fileUuid: 'background' },
      elements: [
        { type: 'image', fileUuid: 'logo', x: 10, y: 10, width: 60, height: null },
        {
          type: 'text',
          text: name,
          x: 20,
          y: 100,
          width: 257,
          fontSize: 24,
          minFontSize: 6,
          font: 'NotoSans',
          color: '#000000',
          align: 'center',
          shrinkToFit: true,
        },
      ],
    },
    files: { background: files.background, logo: files.logo },
    verificationUrl: 'https://verify.example.test/verify/1',
  };
}

const prepared = () => graphicCacheStats.prepared;

/** A pixel of a colour, give or take poppler's rounding. */
const expectColour = (pixel: number[], colour: number[]) => pixel.forEach((value, i) => expect(Math.abs(value - colour[i]!)).toBeLessThanOrEqual(3));

beforeEach(() => clearGraphicCache());

describe("a worker's prepared template graphics", () => {
  it('decodes a background and an image once for many pages, and every page still carries both', async () => {
    const files = { background: png(RED, 'tenant-a/bg/hash-1'), logo: png(BLUE, 'tenant-a/logo/hash-2') };
    const before = prepared();
    const pages: Uint8Array[] = [];
    for (let i = 0; i < 6; i++) pages.push(await renderLayout(drawing(files, `Graduate Number ${i}`)));
    expect(prepared() - before).toBe(2);
    for (const page of [pages[0]!, pages[5]!]) {
      expect(await imagesOf(page)).toEqual([
        { page: 1, width: 400, height: 300 },
        { page: 1, width: 400, height: 300 },
      ]);
      const picture = await renderPage(page, 1, 36);
      // 36 dpi: a point a pixel is 0.5 px; the corner is background, 20 mm in from the top left is the logo.
      expectColour(picture.pixel(picture.width - 3, picture.height - 3), RED);
      expectColour(picture.pixel(Math.round((20 / 25.4) * 36), Math.round((20 / 25.4) * 36)), BLUE);
    }
  });

  it('prepares again for another tenant, for other content under the same uuid, and for a PDF background', async () => {
    const logo = png(BLUE, 'tenant-a/logo/hash-2');
    await renderLayout(drawing({ background: png(RED, 'tenant-a/bg/hash-1'), logo }, 'A'));
    let before = prepared();
    // The same file uuid and bytes, but another tenant's: not the cached entry.
    await renderLayout(drawing({ background: png(RED, 'tenant-b/bg/hash-1'), logo: png(BLUE, 'tenant-b/logo/hash-2') }, 'B'));
    expect(prepared() - before).toBe(2);
    before = prepared();
    // Other bytes (another hash) under the first tenant: prepared again, drawn in their own colour.
    const page = await renderLayout(drawing({ background: png(BLUE, 'tenant-a/bg/hash-3'), logo }, 'C'));
    expect(prepared() - before).toBe(1);
    const picture = await renderPage(page, 1, 36);
    expectColour(picture.pixel(picture.width - 3, picture.height - 3), BLUE);
    before = prepared();
    const pdf: LayoutFile = { mimeType: 'application/pdf', bytes: await diplomaPdf('Background'), cacheKey: 'tenant-a/pdf/hash-4' };
    await renderLayout(drawing({ background: pdf, logo }, 'D'));
    await renderLayout(drawing({ background: pdf, logo }, 'E'));
    expect(prepared() - before).toBe(1);
  });

  it('keeps at most its entries, least recently used leaving first', async () => {
    const limits = { ...GRAPHIC_CACHE_LIMITS };
    GRAPHIC_CACHE_LIMITS.entries = 2;
    try {
      const logo = png(BLUE, 'tenant-a/logo/hash-2');
      const backgrounds = ['x', 'y'].map((hash) => png(RED, `tenant-a/bg/${hash}`));
      await renderLayout(drawing({ background: backgrounds[0]!, logo }, 'A')); // cache: x, logo
      const before = prepared();
      await renderLayout(drawing({ background: backgrounds[0]!, logo }, 'B')); // both hit
      expect(prepared() - before).toBe(0);
      await renderLayout(drawing({ background: backgrounds[1]!, logo }, 'C')); // y in, x out
      expect(prepared() - before).toBe(1);
      await renderLayout(drawing({ background: backgrounds[0]!, logo }, 'D')); // x again
      expect(prepared() - before).toBe(2);
    } finally {
      Object.assign(GRAPHIC_CACHE_LIMITS, limits);
    }
  });

  it('keeps at most its bytes', async () => {
    const limits = { ...GRAPHIC_CACHE_LIMITS };
    GRAPHIC_CACHE_LIMITS.bytes = 1;
    try {
      const files = { background: png(RED, 'tenant-a/bg/hash-1'), logo: png(BLUE, 'tenant-a/logo/hash-2') };
      await renderLayout(drawing(files, 'A'));
      const before = prepared();
      await renderLayout(drawing(files, 'B'));
      // Over budget only the newest entry stays, so the background and the logo push each other out.
      expect(prepared() - before).toBe(2);
    } finally {
      Object.assign(GRAPHIC_CACHE_LIMITS, limits);
    }
  });
});
