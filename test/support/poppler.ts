import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';

const run = promisify(execFile);

/** Writes the PDF to a temporary directory for a command-line tool, and removes it afterwards. */
async function withPdf<T>(pdf: Uint8Array, work: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'poppler-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    return await work(join(dir, 'in.pdf'), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text of each page as Poppler's pdftotext extracts it (UTF-8, reading order). */
export function pdftotextPages(pdf: Uint8Array): Promise<string[]> {
  return withPdf(pdf, async (path) => {
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', path, '-'], { maxBuffer: 64 * 1024 * 1024 });
    return stdout.split('\f').slice(0, -1);
  });
}

export interface WordBox {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word pdftotext finds, with its box in points (origin top left), and the pages' sizes. */
export function wordBoxes(pdf: Uint8Array): Promise<{ pages: Array<{ width: number; height: number }>; words: WordBox[] }> {
  return withPdf(pdf, async (path) => {
    const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', path, '-'], { maxBuffer: 64 * 1024 * 1024 });
    const pages = [...stdout.matchAll(/<page width="([\d.]+)" height="([\d.]+)">/g)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
    const words: WordBox[] = [];
    stdout
      .split('<page ')
      .slice(1)
      .forEach((chunk, page) => {
        for (const m of chunk.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)) {
          words.push({ page, text: m[5], xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]) });
        }
      });
    return { pages, words };
  });
}

/** qpdf's structural check: exit status and output. */
export function qpdfCheck(pdf: Uint8Array): Promise<{ ok: boolean; output: string }> {
  return withPdf(pdf, async (path) => {
    try {
      const { stdout, stderr } = await run('qpdf', ['--check', path]);
      return { ok: true, output: stdout + stderr };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
    }
  });
}

/** `pdfimages -list`: one row per image drawn, with its pixel width and height. */
export function imagesOf(pdf: Uint8Array): Promise<Array<{ page: number; width: number; height: number }>> {
  return withPdf(pdf, async (path) => {
    const { stdout } = await run('pdfimages', ['-list', path]);
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim())
      .map((line) => line.trim().split(/\s+/))
      .filter((cells) => cells[2] === 'image')
      .map((cells) => ({ page: Number(cells[0]), width: Number(cells[3]), height: Number(cells[4]) }));
  });
}

/** A page rendered by pdftoppm: RGB pixels, row by row. */
export interface Render {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number];
}

export function renderPage(pdf: Uint8Array, pageNumber: number, dpi: number): Promise<Render> {
  return withPdf(pdf, async (path, dir) => {
    await run('pdftoppm', ['-r', String(dpi), '-f', String(pageNumber), '-l', String(pageNumber), '-singlefile', path, join(dir, 'page')]);
    const ppm = await readFile(join(dir, 'page.ppm'));
    const match = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString('latin1'))!;
    const [header, width, height] = [match[0].length, Number(match[1]), Number(match[2])];
    return {
      width,
      height,
      pixel: (x, y) => {
        const at = header + (y * width + x) * 3;
        return [ppm[at]!, ppm[at + 1]!, ppm[at + 2]!];
      },
    };
  });
}

/** A real PNG (8-bit RGB) of one colour, for logos. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).fill(Buffer.from([r, g, b]))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
