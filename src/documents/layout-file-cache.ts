import { PDFDocument, PDFObjectCopier, PDFRawStream, type PDFContext, type PDFRef } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import type { LayoutFile } from './layout-drawing.js';
import { checkPdfStructure } from './pdf-structure.js';
import { openPdf } from './source-pdf.js';

/**
 * A background or image of a template, made ready for a page once: a PNG decoded and its pixels (and
 * alpha) compressed, a JPEG wrapped, a PDF's first page turned into a form XObject. It lives in a
 * document of its own; each page copies its objects, already-encoded streams, by reference.
 */
export interface PreparedGraphic {
  kind: 'Image' | 'EmbeddedPdfPage';
  context: PDFContext;
  ref: PDFRef;
  /** Pixels of an image; points of a page (its bounding box). */
  width: number;
  height: number;
  /** The bytes its streams hold: what the cache counts against its budget. */
  bytes: number;
}

/** Per thread: how many entries and bytes of prepared graphics it keeps (least recently used leave first). */
export const GRAPHIC_CACHE_LIMITS = { entries: 32, bytes: 64 * 1024 * 1024 };

const prepared = new Map<string, PreparedGraphic>();
let heldBytes = 0;

/** How often this thread prepared a graphic (decoded an image, parsed a background PDF): tests read it. */
export const graphicCacheStats = { prepared: 0 };

/**
 * The graphic of `file`, prepared on this thread at most once while it stays cached. The key is the
 * file's `cacheKey` (tenant, file uuid, SHA-256 of its content: src/templates/template-drawing.ts),
 * so a tenant's file never stands in for another's and changed bytes are another entry.
 */
export async function preparedGraphic(file: LayoutFile, as: 'background' | 'image'): Promise<PreparedGraphic> {
  const key = `${as}:${file.cacheKey}`;
  const cached = prepared.get(key);
  if (cached) {
    prepared.delete(key);
    prepared.set(key, cached);
    return cached;
  }
  const graphic = await prepare(file);
  graphicCacheStats.prepared++;
  prepared.set(key, graphic);
  heldBytes += graphic.bytes;
  while (prepared.size > GRAPHIC_CACHE_LIMITS.entries || (heldBytes > GRAPHIC_CACHE_LIMITS.bytes && prepared.size > 1)) {
    const [oldest, entry] = prepared.entries().next().value!;
    prepared.delete(oldest);
    heldBytes -= entry.bytes;
  }
  return graphic;
}

/** Empties this thread's cache (tests start from nothing). */
export function clearGraphicCache(): void {
  prepared.clear();
  heldBytes = 0;
}

/** Copies a prepared graphic's objects into `document`: the ref to draw there. */
export function copyGraphic(graphic: PreparedGraphic, document: PDFDocument): PDFRef {
  return PDFObjectCopier.for(graphic.context, document.context).copy(graphic.ref);
}

async function prepare(file: LayoutFile): Promise<PreparedGraphic> {
  const holder = await PDFDocument.create({ updateMetadata: false });
  let graphic: Omit<PreparedGraphic, 'bytes' | 'context'>;
  if (file.mimeType === 'application/pdf') graphic = await preparePage(holder, file);
  else graphic = await prepareImage(holder, file);
  await holder.flush();
  return { ...graphic, context: holder.context, bytes: streamBytes(holder.context) };
}

async function preparePage(holder: PDFDocument, file: LayoutFile): Promise<Omit<PreparedGraphic, 'bytes' | 'context'>> {
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const refused = checkPdfStructure(bytes);
  if (refused) throw new DocumentError('PDF_UNREADABLE', `The template's background PDF cannot be read: ${refused}`);
  const source = await openPdf(bytes);
  try {
    const [page] = await holder.embedPages([source.getPage(0)]);
    return { kind: 'EmbeddedPdfPage', ref: page!.ref, width: page!.width, height: page!.height };
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', "The template's background PDF cannot be drawn.", { cause: error });
  }
}

/** A PNG is decoded and compressed again (once, here); a JPEG goes into the PDF as it is (DCTDecode). */
async function prepareImage(holder: PDFDocument, file: LayoutFile): Promise<Omit<PreparedGraphic, 'bytes' | 'context'>> {
  const jpeg = file.mimeType === 'image/jpeg';
  try {
    // pdf-lib reads a JPEG through a DataView of the whole underlying buffer (its byteOffset ignored): hand it bytes that start it.
    const image = await (jpeg ? holder.embedJpg(new Uint8Array(file.bytes)) : holder.embedPng(file.bytes));
    return { kind: 'Image', ref: image.ref, width: image.width, height: image.height };
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', `An image of the template cannot be read as a ${jpeg ? 'JPEG' : 'PNG'}.`, { cause: error });
  }
}

function streamBytes(context: PDFContext): number {
  let bytes = 0;
  // Dictionaries and numbers: a rough kilobyte an object on top of the streams' contents.
  for (const [, object] of context.enumerateIndirectObjects()) bytes += 1024 + (object instanceof PDFRawStream ? object.contents.byteLength : 0);
  return bytes;
}
