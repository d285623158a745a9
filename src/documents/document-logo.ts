import type { PDFDocument, PDFImage } from 'pdf-lib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Decoding a PNG costs width × height × 4 bytes; a logo needs far less than this. */
const MAX_PIXELS = 4096 * 4096;

/** Width and height from the IHDR chunk, or undefined when the bytes are not a PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 24 || !buffer.subarray(0, 8).equals(PNG_SIGNATURE) || buffer.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/**
 * Embeds the institution's logo. The badge image is the tenant's upload (PNG or SVG): an SVG, a PNG
 * too large to decode cheaply or one pdf-lib cannot read leaves the document without a logo rather
 * than failing the issuance.
 */
export async function embedLogo(document: PDFDocument, bytes: Uint8Array | null | undefined): Promise<PDFImage | undefined> {
  if (!bytes) return undefined;
  const size = pngSize(bytes);
  if (!size || size.width === 0 || size.height === 0 || size.width * size.height > MAX_PIXELS) return undefined;
  try {
    return await document.embedPng(bytes);
  } catch {
    return undefined;
  }
}
