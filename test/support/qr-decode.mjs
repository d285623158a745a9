/**
 * Decodes the QR code on one rendered page (a binary PPM, `P6`, as Poppler's pdftoppm writes it) with
 * jsQR, and prints `{"data": string | null}`. Run as its own Node process by test/support/qr.ts: jsQR
 * scanning a page inside Jest's module sandbox cost about 1.7 s of CPU a page, several times what the
 * same scan costs in plain Node.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// jsqr is CommonJS with `exports.default`.
const jsQRModule = require('jsqr');
const jsQR = jsQRModule.default ?? jsQRModule;

/** An RGB image as Poppler renders it (binary PPM, `P6`), as RGBA. */
function rgbaFromPpm(ppm) {
  const header = ppm.subarray(0, 64).toString('latin1');
  const match = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(header);
  if (!match) throw new Error('not a binary PPM');
  const [whole, w, h] = match;
  const width = Number(w);
  const height = Number(h);
  const pixels = ppm.subarray(whole.length);
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0, k = 0; i < width * height; i += 1, j += 3, k += 4) {
    rgba[k] = pixels[j];
    rgba[k + 1] = pixels[j + 1];
    rgba[k + 2] = pixels[j + 2];
    rgba[k + 3] = 255;
  }
  return { width, height, rgba };
}

const { width, height, rgba } = rgbaFromPpm(readFileSync(process.argv[2]));
process.stdout.write(JSON.stringify({ data: jsQR(rgba, width, height)?.data ?? null }));
