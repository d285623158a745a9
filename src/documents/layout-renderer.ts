import { PDFDocument, rgb, type PDFPage, type RGB } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import { loadFace } from './font-library.js';
import type { ImageElement, LayoutDrawing, LayoutFile, QrElement, TextElement } from './layout-drawing.js';
import { checkPdfStructure } from './pdf-structure.js';
import { qrModules } from './qr-code.js';
import { drawQrCode, QR_QUIET_MODULES } from './qr-drawing.js';
import { openPdf } from './source-pdf.js';
import { Typeface } from './typeface.js';

const POINTS_PER_MM = 72 / 25.4;
const pt = (mm: number) => mm * POINTS_PER_MM;

function color(hex: string): RGB {
  const value = parseInt(hex.slice(1), 16);
  return rgb(((value >> 16) & 255) / 255, ((value >> 8) & 255) / 255, (value & 255) / 255);
}

/** A page in millimetres from the top-left corner, drawn in PDF points from the bottom-left. */
class Canvas {
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
    if (element.type === 'text') drawText(canvas, element);
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

/** The first page of an uploaded PDF, or an uploaded PNG, stretched over the whole page. */
async function drawBackground({ document, page }: Canvas, file: LayoutFile): Promise<void> {
  const whole = { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() };
  if (file.mimeType === 'image/png') return page.drawImage(await embedPng(document, file.bytes), whole);
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const refused = checkPdfStructure(bytes);
  if (refused) throw new DocumentError('PDF_UNREADABLE', `The template's background PDF cannot be read: ${refused}`);
  const source = await openPdf(bytes);
  try {
    const [background] = await document.embedPages([source.getPage(0)]);
    page.drawPage(background!, whole);
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', "The template's background PDF cannot be drawn.", { cause: error });
  }
}

async function embedPng(document: PDFDocument, bytes: Uint8Array) {
  try {
    return await document.embedPng(bytes);
  } catch (error) {
    throw new DocumentError('PDF_UNREADABLE', 'An image of the template cannot be read as a PNG.', { cause: error });
  }
}

/**
 * Text in its box: one line per `\n`, each aligned in the box's width; with `shrinkToFit`, the size
 * drops (not below `minFontSize`) until the widest line fits. `y` is the top of the first line: the
 * font's ascender sits there, as a PDF reader's text box does.
 */
function drawText(canvas: Canvas, element: TextElement): void {
  const { page, typeface } = canvas;
  const weight = element.font === 'NotoSans-Bold' ? 'bold' : 'regular';
  const lines = element.text.split('\n');
  const box = pt(element.width);
  let size = element.fontSize;
  const widest = () => Math.max(...lines.map((line) => typeface.width(line, { weight, size, color: rgb(0, 0, 0) })));
  if (element.shrinkToFit && widest() > box) size = Math.max(element.minFontSize, (size * box) / widest());
  const { font } = loadFace(0, weight);
  const [ascent, lineHeight] = [(font.ascent / font.unitsPerEm) * size, ((font.ascent - font.descent) / font.unitsPerEm) * size];
  const style = { weight, size, color: color(element.color) } as const;
  lines.forEach((line, index) => {
    const width = typeface.width(line, style);
    const offset = element.align === 'center' ? (box - width) / 2 : element.align === 'right' ? box - width : 0;
    typeface.draw(page, line, { x: pt(element.x) + offset, y: canvas.top(element.y) - ascent - index * lineHeight }, style);
  });
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
  const image = await embedPng(document, file.bytes);
  const box = { width: pt(element.width), height: element.height === null ? null : pt(element.height) };
  const scale = Math.min(box.width / image.width, box.height === null ? Infinity : box.height / image.height);
  const [width, height] = [image.width * scale, image.height * scale];
  const left = pt(element.x) + (box.width - width) / 2;
  page.drawImage(image, { x: left, y: canvas.top(element.y) - height, width, height });
}
