import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * A PDF's first page as a PNG, drawn on this thread without a browser: PDF.js (pdfjs-dist) parses
 * and paints, @napi-rs/canvas (Skia, prebuilt for each platform in its npm package) holds the pixels.
 * Both load on first use, so threads that never draw a preview do not pay for them.
 */

type RenderParameters = Parameters<PDFPageProxy['render']>[0];

/** Width of a preview in pixels: a landscape A4 page at about 100 dpi. The height keeps the ratio. */
export const PREVIEW_WIDTH_PX = 1200;
/** The longest side any preview may have, whatever the page's shape (a 50 × 1200 mm page stays bounded). */
const MAX_SIDE_PX = 2400;
/** The 14 standard fonts (Helvetica of the signature stamp, a background PDF's Times) as PDF.js ships them: PDFs need not embed these. */
const STANDARD_FONTS = `${join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

export async function rasterizeFirstPage(pdf: Uint8Array, widthPx = PREVIEW_WIDTH_PX): Promise<Uint8Array> {
  const [{ getDocument }, { createCanvas }] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('@napi-rs/canvas')]);
  // PDF.js takes the buffer over: hand it a copy so the caller's bytes stay usable.
  const document = await getDocument({
    data: new Uint8Array(pdf),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    standardFontDataUrl: STANDARD_FONTS,
  }).promise;
  try {
    const page = await document.getPage(1);
    const natural = page.getViewport({ scale: 1 });
    const scale = Math.min(widthPx / natural.width, MAX_SIDE_PX / natural.height);
    const viewport = page.getViewport({ scale });
    const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
    const context = canvas.getContext('2d');
    await page.render({ canvasContext: context as unknown as RenderParameters['canvasContext'], viewport }).promise;
    return new Uint8Array(await canvas.encode('png'));
  } finally {
    await document.destroy();
  }
}
