import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsQRModule from 'jsqr';

const run = promisify(execFile);
// jsqr is CommonJS with `exports.default`; under ESM the default import is the module object.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as Decode;

/** An RGB image as Poppler renders it (binary PPM, `P6`). */
function rgbaFromPpm(ppm: Buffer): { width: number; height: number; rgba: Uint8ClampedArray } {
  const header = ppm.subarray(0, 64).toString('latin1');
  const match = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(header);
  if (!match) throw new Error('not a binary PPM');
  const [whole, w, h] = match;
  const width = Number(w);
  const height = Number(h);
  const pixels = ppm.subarray(whole.length);
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i += 1, j += 3) rgba.set([pixels[j]!, pixels[j + 1]!, pixels[j + 2]!, 255], i * 4);
  return { width, height, rgba };
}

/**
 * Renders one page with Poppler's `pdftoppm` and decodes the QR code a reader's phone would see on it
 * (jsQR, an independent decoder); null when none is found.
 */
export async function qrOnPage(pdf: Uint8Array, pageNumber = 1, dpi = 150): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'qr-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', ['-r', String(dpi), '-f', String(pageNumber), '-l', String(pageNumber), '-singlefile', join(dir, 'in.pdf'), join(dir, 'page')]);
    const { width, height, rgba } = rgbaFromPpm(await readFile(join(dir, 'page.ppm')));
    return jsQR(rgba, width, height)?.data ?? null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
