import type { FileContext } from '../files/file.service.js';
import { files } from '../files/file.service.js';
import type { StoredFile } from '../files/file.entity.js';
import { JPEG, PNG, SVG, skipProlog } from '../files/file-type.js';
import { invalid } from '../errors/domain-error.js';
import { humanize } from '../errors/humanize.js';

/**
 * Largest badge image an institution may use. Every baked badge is a copy of it (and, before it was
 * cached, a bake on a badge worker), so a huge one costs on every public image request.
 */
export const BADGE_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
/** Largest width and height, in pixels (SVG: in CSS pixels, from width/height or else the viewBox). */
export const BADGE_IMAGE_MAX_SIDE = 2048;

/** How much of the file the declared size is read from: a PNG's IHDR, an SVG's root start tag. */
const HEAD_BYTES = 8 * 1024;

export interface ImageSize {
  width: number;
  height: number;
}

const CSS_PIXELS: Record<string, number> = { '': 1, px: 1, pt: 4 / 3, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96 };

/** A length attribute in CSS pixels; null for percentages, em and anything unreadable. */
function cssPixels(value: string | undefined): number | null {
  const match = value === undefined ? null : /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*$/i.exec(value);
  const factor = match ? CSS_PIXELS[match[2]!.toLowerCase()] : undefined;
  return match && factor !== undefined ? Number(match[1]) * factor : null;
}

function svgSize(head: Buffer): ImageSize | null {
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const root = skipProlog(text);
  const end = root < 0 ? -1 : text.indexOf('>', root);
  if (end < 0) return null;
  const attributes = new Map([...text.slice(root, end).matchAll(/\s([A-Za-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)].map((m) => [m[1]!, m[2] ?? m[3]!]));
  const width = cssPixels(attributes.get('width'));
  const height = cssPixels(attributes.get('height'));
  if (width !== null && height !== null) return { width, height };
  const box = (attributes.get('viewBox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  if (box.length === 4 && box.every(Number.isFinite)) return { width: width ?? box[2]!, height: height ?? box[3]! };
  return null;
}

/** A JPEG's size from its first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC), walking the segments before it. */
function jpegSize(head: Buffer): ImageSize | null {
  let at = 2;
  while (at + 9 <= head.length && head[at] === 0xff) {
    const marker = head[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = head.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: head.readUInt16BE(at + 7), height: head.readUInt16BE(at + 5) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * The size an image declares in its first bytes: a PNG's IHDR, a JPEG's frame header, an SVG root's
 * width and height (or its viewBox). Null when it declares none that can be read (an SVG may leave
 * its size to the page; a JPEG's frame may lie past the head read).
 */
export function declaredImageSize(head: Buffer, mimeType: string): ImageSize | null {
  if (mimeType === SVG.mimeType) return svgSize(head);
  if (mimeType === JPEG.mimeType) return jpegSize(head);
  if (head.length < 24 || head.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** Why `file` cannot be a badge image, or null when it can: over the bytes or pixels limits, or a PNG without a readable size. */
export function badgeImageProblem(file: Pick<StoredFile, 'size' | 'mimeType'>, head: Buffer): string | null {
  if (file.size > BADGE_IMAGE_MAX_BYTES) return `must not be larger than ${BADGE_IMAGE_MAX_BYTES / 1024 / 1024} MB (it has ${file.size} bytes).`;
  const size = declaredImageSize(head, file.mimeType);
  if (!size) return file.mimeType === PNG.mimeType ? 'must be a PNG whose size can be read.' : null;
  if (size.width > BADGE_IMAGE_MAX_SIDE || size.height > BADGE_IMAGE_MAX_SIDE) {
    return `must not be larger than ${BADGE_IMAGE_MAX_SIDE}×${BADGE_IMAGE_MAX_SIDE} pixels (it is ${Math.round(size.width)}×${Math.round(size.height)}).`;
  }
  return null;
}

/** The first `bytes` of a stored file (all of it when shorter). */
export async function headOf(ctx: FileContext, file: StoredFile, bytes = HEAD_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await files.open(ctx, file)) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length >= bytes) break;
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

/** 422 on `field` unless it names a live PNG or SVG of the tenant within the badge image limits. */
export async function requireBadgeImage(ctx: FileContext, uuid: string, field: string): Promise<StoredFile> {
  const file = await files.requireImage(ctx, uuid, field);
  const problem = badgeImageProblem(file, await headOf(ctx, file));
  if (problem) throw invalid({ [field]: [`The ${humanize(field)} ${problem}`] });
  return file;
}
