import { rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { printableText } from './printable-text.js';

/** Fonts plus the code points they can encode, shared by every drawing helper. */
export interface Typeface {
  regular: PDFFont;
  bold: PDFFont;
  supported: ReadonlySet<number>;
}

export interface TextStyle {
  font: PDFFont;
  size: number;
  grey?: boolean;
}

/** A piece of page content of known height, drawn from a given top edge. */
export interface Block {
  height: number;
  /** Part of the module table: a page break before it repeats the table header. */
  inTable?: boolean;
  /** Height of what must follow on the same page (a heading keeps its first row). */
  keepWithNext?: number;
  draw(page: PDFPage, top: number): void;
}

export interface PlacedBlock {
  block: Block;
  top: number;
}

const GREY = rgb(0.35, 0.35, 0.35);
const BLACK = rgb(0, 0, 0);

export function printable(typeface: Typeface, text: string): string {
  return printableText(text, typeface.supported);
}

/** Splits printable text into lines no wider than `width`, breaking inside words only when one is too long. */
export function wrap(text: string, style: TextStyle, width: number): string[] {
  const fits = (candidate: string) => style.font.widthOfTextAtSize(candidate, style.size) <= width;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    for (const character of Array.from(word)) {
      if (!fits(line + character) && line) {
        lines.push(line);
        line = '';
      }
      line += character;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

export function drawText(page: PDFPage, text: string, at: { x: number; baseline: number; alignRight?: boolean }, style: TextStyle): void {
  const width = style.font.widthOfTextAtSize(text, style.size);
  page.drawText(text, {
    x: at.alignRight ? at.x - width : at.x,
    y: at.baseline,
    font: style.font,
    size: style.size,
    color: style.grey ? GREY : BLACK,
  });
}

export function drawRule(page: PDFPage, from: number, to: number, y: number, thickness = 0.5): void {
  page.drawLine({ start: { x: from, y }, end: { x: to, y }, thickness, color: GREY });
}

/** Fills pages top to bottom; a table block that starts a page gets the table header first. */
export function paginate(blocks: Block[], tableHeader: Block, bodyTop: number, bodyBottom: number): PlacedBlock[][] {
  const pages: PlacedBlock[][] = [[]];
  let top = bodyTop;
  for (const block of blocks) {
    const current = pages[pages.length - 1];
    if (top - block.height - (block.keepWithNext ?? 0) < bodyBottom && current.length > 0) {
      pages.push([]);
      top = bodyTop;
      if (block.inTable) {
        pages[pages.length - 1].push({ block: tableHeader, top });
        top -= tableHeader.height;
      }
    }
    pages[pages.length - 1].push({ block, top });
    top -= block.height;
  }
  return pages;
}
