import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Renders one page with Poppler's `pdftoppm` and decodes the QR code a reader's phone would see on it
 * (jsQR, an independent decoder); null when none is found.
 */
export async function qrOnPage(pdf: Uint8Array, pageNumber = 1, dpi = 150): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'qr-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', ['-r', String(dpi), '-f', String(pageNumber), '-l', String(pageNumber), '-singlefile', join(dir, 'in.pdf'), join(dir, 'page')]);
    // Decoded by jsQR in a plain Node process (test/support/qr-decode.mjs): the same scan of the same pixels, without Jest's sandbox.
    const { stdout } = await run(process.execPath, ['test/support/qr-decode.mjs', join(dir, 'page.ppm')], {
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE },
    });
    return (JSON.parse(stdout) as { data: string | null }).data;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
