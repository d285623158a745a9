import QRCode from 'qrcode';
import { crc32, deflateSync } from 'node:zlib';

/** The dark/light modules of a QR code, row by row; drawn by whichever document needs one. */
export interface QrModules {
  size: number;
  isDark(row: number, column: number): boolean;
}

/**
 * Medium error correction: survives a smudged print while keeping a verification URL at 33×33 modules or less.
 * One byte-mode segment: a URL gains nothing from qrcode's mixed-mode search, which costs four times the rest.
 */
export function qrModules(text: string): QrModules {
  if (last?.text === text) return last.modules;
  const result = uncachedQrModules(text);
  last = { text, modules: result };
  return result;
}

function uncachedQrModules(text: string): QrModules {
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
  return { size: modules.size, isDark: (row, column) => modules.get(row, column) === 1 };
}

// An issuance draws its verification URL twice (the certificate's stamp, the transcript); choosing the
// mask pattern is most of a code's cost, so the thread keeps the last one.
let last: { text: string; modules: QrModules } | undefined;

/**
 * A QR code as a PNG data URL `width` pixels square with a `margin` of light modules, black on white:
 * 8-bit greyscale rows without a filter, deflated by zlib. (qrcode's own PNG renderer tries five filters on
 * every row of an RGBA image in JavaScript — 50 ms an e-mail here, over a second under a test runner.)
 */
export function qrPngDataUrl(text: string, width: number, margin: number): string {
  // Not through qrModules' one-entry cache, which an issuance keeps for its verification URL.
  const modules = uncachedQrModules(text);
  const side = modules.size + margin * 2;
  // Pixels map to modules as in qrcode's renderer: `scale` need not be whole.
  const scale = width >= side ? width / side : 4;
  const size = Math.floor(side * scale);
  const edge = margin * scale;
  // The pixel columns of each module, [from, to) (after the row's filter byte); rows of one module row are the same bytes.
  const from = new Int32Array(modules.size + 1).fill(size + 1);
  for (let x = size - 1; x >= 0; x -= 1) if (x >= edge && x < size - edge) from[Math.floor((x - edge) / scale)] = x + 1;
  from[modules.size] = Math.ceil(size - edge) + 1;
  const light = Buffer.alloc(size + 1, 255);
  light[0] = 0; // filter: none
  const moduleRows = Array.from({ length: modules.size }, (_, moduleRow) => {
    const row = Buffer.from(light);
    for (let column = 0; column < modules.size; column += 1) if (modules.isDark(moduleRow, column)) row.fill(0, from[column], from[column + 1]);
    return row;
  });
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y += 1) rows.push(y >= edge && y < size - edge ? moduleRows[Math.floor((y - edge) / scale)]! : light);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, deflate, no filter method, no interlace
  const png = Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
