import { Resvg } from '@resvg/resvg-js';

// A white check mark on the pages' link blue: the service's mark, drawn once a process.
const MARK = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="#1f4fd1"/><path d="M13 25l7 7 15-16" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** An ICO file holding one 48 × 48 PNG (allowed since Windows Vista, read by every browser). */
function icoOf(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, png]);
}

let favicon: Buffer | undefined;

/** GET /favicon.ico's bytes. */
export const faviconIco = (): Buffer => (favicon ??= icoOf(new Resvg(MARK).render().asPng(), 48));
