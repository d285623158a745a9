import fontkit from '@pdf-lib/fontkit';
import { degrees, drawImage as drawImageOperators, drawPage as drawPageOperators, PDFDocument, rgb, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import { loadFace, loadUploadedFont, type LoadedFont } from './font-library.js';
import { subsetTag } from './font-subset.js';
import type { ImageElement, LayoutDrawing, LayoutFile, QrElement, TextElement } from './layout-drawing.js';
import { copyGraphic, preparedGraphic, type PreparedGraphic } from './layout-file-cache.js';
import { qrModules } from './qr-code.js';
import { drawQrCode, QR_QUIET_MODULES } from './qr-drawing.js';
import { Typeface } from './typeface.js';

const POINTS_PER_MM = 72 / 25.4;
const pt = (mm: number) => mm * POINTS_PER_MM;

function color(hex: string): RGB {
  const value = parseInt(hex.slice(1), 16);
  return rgb(((value >> 16) & 255) / 255, ((value >> 8) & 255) / 255, (value & 255) / 255);
}

/** A page in millimetres from the top-left corner, drawn in PDF points from the bottom-left. */
class Canvas {
  /** Uploaded fonts embedded so far, by file uuid: each goes into the document once. */
  readonly uploadedFonts = new Map<string, PDFFont>();

  constructor(
    readonly document: PDFDocument,
    readonly page: PDFPage,
    readonly typeface: Typeface,
  ) {}

  /** PDF y of a point `mm` below the top edge. */
  top(mm: number): number {
    return this.page.getHeight() - pt(mm);
  }
}

/**
 * Draws a template's layout as a one-page PDF: background, then the elements in order, text above
 * everything (Typeface draws it last). Uploaded files are untrusted: a background PDF passes the
 * structure check first, and anything pdf-lib cannot read is a DocumentError (a 422 for the caller).
 */
export async function renderLayout({ layout, files, verificationUrl }: LayoutDrawing): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.setTitle('Certificate');
  const page = document.addPage([pt(layout.page.width), pt(layout.page.height)]);
  const canvas = new Canvas(document, page, new Typeface(document.context));
  const background = layout.background;
  if (background && 'color' in background) page.drawRectangle({ x: 0, y: 0, width: page.getWidth(), height: page.getHeight(), color: color(background.color) });
  else if (background) await drawBackground(canvas, fileOf(files, background.fileUuid));
  for (const element of layout.elements) {
    if (element.type === 'text') await drawText(canvas, element, files);
    else if (element.type === 'qr') drawQr(canvas, element, verificationUrl);
    else if (element.type === 'image') await drawImage(canvas, element, fileOf(files, element.fileUuid));
    else if (element.type === 'line') {
      page.drawLine({
        start: { x: pt(element.x), y: canvas.top(element.y) },
        end: { x: pt(element.x2), y: canvas.top(element.y2) },
        thickness: element.thickness,
        color: color(element.color),
      });
    } else {
      page.drawRectangle({
        x: pt(element.x),
        y: canvas.top(element.y + element.height),
        width: pt(element.width),
        height: pt(element.height),
        borderWidth: element.color ? element.thickness : 0,
        borderColor: element.color ? color(element.color) : undefined,
        color: element.fill ? color(element.fill) : undefined,
      });
    }
  }
  await canvas.typeface.flush();
  return document.save();
}

function fileOf(files: LayoutDrawing['files'], uuid: string): LayoutFile {
  const file = files[uuid];
  if (!file) throw new DocumentError('PDF_UNREADABLE', `The file ${uuid} the template draws is not available.`);
  return file;
}

/** The first page of an uploaded PDF, or an uploaded PNG or JPEG, stretched over the whole page. */
async function drawBackground({ document, page }: Canvas, file: LayoutFile): Promise<void> {
  const graphic = await preparedGraphic(file, 'background');
  drawGraphic(document, page, graphic, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
}

/**
 * Draws a prepared graphic (layout-file-cache.ts) in a box: its objects are copied into this
 * document as they are, so a PNG is not decoded nor compressed again for every page.
 */
function drawGraphic(document: PDFDocument, page: PDFPage, graphic: PreparedGraphic, box: { x: number; y: number; width: number; height: number }): void {
  const name = page.node.newXObject(graphic.kind, copyGraphic(graphic, document));
  const at = { x: box.x, y: box.y, rotate: degrees(0), xSkew: degrees(0), ySkew: degrees(0) };
  if (graphic.kind === 'Image') page.pushOperators(...drawImageOperators(name, { ...at, width: box.width, height: box.height }));
  else page.pushOperators(...drawPageOperators(name, { ...at, xScale: box.width / graphic.width, yScale: box.height / graphic.height }));
}

/**
 * Text in its box: one line per `\n`, each aligned in the box's width; with `shrinkToFit`, the size
 * drops (not below `minFontSize`) until the widest line fits. `y` is the top of the first line: the
 * font's ascender sits there, as a PDF reader's text box does.
 */
async function drawText(canvas: Canvas, element: TextElement, files: LayoutDrawing['files']): Promise<void> {
  const { page } = canvas;
  const lines = element.text.split('\n');
  const pen = (await uploadedPen(canvas, element, files)) ?? bundledPen(canvas, element);
  const box = pt(element.width);
  let size = element.fontSize;
  const widest = () => Math.max(...lines.map((line) => pen.width(line, size)));
  if (element.shrinkToFit && widest() > box) size = Math.max(element.minFontSize, (size * box) / widest());
  const { font } = pen;
  const [ascent, lineHeight] = [(font.ascent / font.unitsPerEm) * size, ((font.ascent - font.descent) / font.unitsPerEm) * size];
  lines.forEach((line, index) => {
    const width = pen.width(line, size);
    const offset = element.align === 'center' ? (box - width) / 2 : element.align === 'right' ? box - width : 0;
    pen.draw(page, line, { x: pt(element.x) + offset, y: canvas.top(element.y) - ascent - index * lineHeight }, size, color(element.color));
  });
}

/** What drawText needs of a face: its metrics, the width of a line and a way to draw it. */
interface Pen {
  font: Pick<LoadedFont['font'], 'ascent' | 'descent' | 'unitsPerEm'>;
  width(line: string, size: number): number;
  draw(page: PDFPage, line: string, at: { x: number; y: number }, size: number, color: RGB): void;
}

/** The bundled Noto faces with their fallback chain, through the shared Typeface. */
function bundledPen({ typeface }: Canvas, element: TextElement): Pen {
  const weight = element.font === 'NotoSans-Bold' ? 'bold' : 'regular';
  return {
    font: loadFace(0, weight).font,
    width: (line, size) => typeface.width(line, { weight, size, color: rgb(0, 0, 0) }),
    draw: (page, line, at, size, ink) => typeface.draw(page, line, at, { weight, size, color: ink }),
  };
}

/**
 * An uploaded TTF/OTF (`files/{uuid}`), embedded as a subset. It draws the element only when it has a
 * glyph for every character of the filled text; otherwise the bundled faces do (a Latin display face
 * meeting a Chinese name), rather than boxes in the middle of a name.
 */
async function uploadedPen({ document, uploadedFonts }: Canvas, element: TextElement, files: LayoutDrawing['files']): Promise<Pen | null> {
  const uuid = element.font.startsWith('files/') ? element.font.slice('files/'.length) : null;
  if (!uuid) return null;
  const file = fileOf(files, uuid);
  const loaded = loadUploadedFont(file.cacheKey, file.bytes);
  if (![...element.text].every((character) => /\s/.test(character) || loaded.font.hasGlyphForCodePoint(character.codePointAt(0)!))) return null;
  let embedded = uploadedFonts.get(uuid);
  if (!embedded) {
    // Uploaded faces go through pdf-lib's own embedding (no shaping): the bundled faces use font-subset.ts.
    // pdf-lib names a subset `Name-1234`; ISO 32000-1 §9.6.4 wants `ABCDEF+Name`. Its glyphs are known
    // only when the document is saved, so the tag comes from the font file: one subset of it per
    // document, and different uploaded files get different tags.
    document.registerFontkit(fontkit);
    const customName = `${subsetTag(loaded.font.postscriptName || 'Font', loaded.bytes)}+${loaded.font.postscriptName || 'Font'}`;
    uploadedFonts.set(uuid, (embedded = await document.embedFont(loaded.bytes, { subset: true, customName })));
  }
  const font = embedded;
  return {
    font: loaded.font,
    width: (line, size) => font.widthOfTextAtSize(line, size),
    draw: (page, line, at, size, ink) => page.drawText(line, { ...at, size, font, color: ink }),
  };
}

/** The verification QR code on a white square that holds its quiet zone. */
function drawQr(canvas: Canvas, element: QrElement, url: string): void {
  const { document, page } = canvas;
  const modules = qrModules(url);
  const side = pt(element.size);
  const unit = side / (modules.size + 2 * QR_QUIET_MODULES);
  page.drawRectangle({ x: pt(element.x), y: canvas.top(element.y) - side, width: side, height: side, color: rgb(1, 1, 1) });
  const inset = unit * QR_QUIET_MODULES;
  drawQrCode(document, page, modules, { x: pt(element.x) + inset, top: canvas.top(element.y) - inset, size: side - 2 * inset }, color(element.color));
}

async function drawImage(canvas: Canvas, element: ImageElement, file: LayoutFile): Promise<void> {
  const { document, page } = canvas;
  const image = await preparedGraphic(file, 'image');
  const box = { width: pt(element.width), height: element.height === null ? null : pt(element.height) };
  const scale = Math.min(box.width / image.width, box.height === null ? Infinity : box.height / image.height);
  const [width, height] = [image.width * scale, image.height * scale];
  const left = pt(element.x) + (box.width - width) / 2;
  drawGraphic(document, page, image, { x: left, y: canvas.top(element.y) - height, width, height });
}
