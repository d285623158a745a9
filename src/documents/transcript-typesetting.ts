import {
  fill,
  lineTo,
  moveTo,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  setFillingColor,
  setLineWidth,
  setStrokingColor,
  stroke,
  type Color,
  type PDFPage,
} from 'pdf-lib';
import type { TextStyle, Typeface } from './typeface.js';

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

/** Collapses runs of whitespace (line breaks included) and composes characters (NFC), as a name is printed. */
export function normalizeText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/**
 * Splits text into lines no wider than `width`, at spaces, and inside a word only when the word
 * alone is too wide (long names, URLs, scripts written without spaces). Widths add up (typeface.ts),
 * so each word is measured once.
 */
export function wrap(typeface: Typeface, text: string, style: TextStyle, width: number): string[] {
  const space = typeface.width(' ', style);
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  const finishLine = () => {
    if (line) lines.push(line);
    line = '';
    lineWidth = 0;
  };
  for (const word of normalizeText(text).split(' ').filter(Boolean)) {
    const wordWidth = typeface.width(word, style);
    if (line && lineWidth + space + wordWidth <= width) {
      line += ` ${word}`;
      lineWidth += space + wordWidth;
      continue;
    }
    finishLine();
    if (wordWidth <= width) {
      line = word;
      lineWidth = wordWidth;
      continue;
    }
    for (const character of Array.from(word)) {
      const characterWidth = typeface.width(character, style);
      if (line && lineWidth + characterWidth > width) finishLine();
      line += character;
      lineWidth += characterWidth;
    }
  }
  finishLine();
  return lines.length > 0 ? lines : [''];
}

/**
 * Wraps text at the style's size, shrinking it step by step (down to `minSize`) while it takes more
 * than `maxLines`; past `minSize` it keeps wrapping, so nothing is ever cut off.
 */
export function fit(
  typeface: Typeface,
  text: string,
  style: TextStyle,
  width: number,
  maxLines: number,
  minSize: number,
): { lines: string[]; style: TextStyle } {
  let current = style;
  let lines = wrap(typeface, text, current, width);
  while (lines.length > maxLines && current.size > minSize) {
    current = { ...current, size: Math.max(minSize, current.size - 1) };
    lines = wrap(typeface, text, current, width);
  }
  return { lines, style: current };
}

/** One line that must stay one line: cut with an ellipsis when too wide (running heads only). */
export function ellipsize(typeface: Typeface, text: string, style: TextStyle, width: number): string {
  const normalized = normalizeText(text);
  if (typeface.width(normalized, style) <= width) return normalized;
  const characters = Array.from(normalized);
  while (characters.length > 0 && typeface.width(`${characters.join('')}…`, style) > width) characters.pop();
  return `${characters.join('').trimEnd()}…`;
}

// Rules and boxes go straight to the content stream: pdf-lib's drawLine/drawRectangle validate and
// wrap every call, which showed in the rendering time of a transcript's few hundred of them.
export function drawRule(page: PDFPage, from: number, to: number, y: number, color: Color, thickness = 0.5): void {
  page.pushOperators(pushGraphicsState(), setStrokingColor(color), setLineWidth(thickness), moveTo(from, y), lineTo(to, y), stroke(), popGraphicsState());
}

export function fillBox(page: PDFPage, box: { x: number; top: number; width: number; height: number }, color: Color): void {
  page.pushOperators(pushGraphicsState(), setFillingColor(color), rectangle(box.x, box.top - box.height, box.width, box.height), fill(), popGraphicsState());
}

/** Fills pages top to bottom; a table block that starts a page gets the table header first. */
export function paginate(blocks: Block[], tableHeader: Block, bodyTop: (pageIndex: number) => number, bodyBottom: number): PlacedBlock[][] {
  const pages: PlacedBlock[][] = [[]];
  let top = bodyTop(0);
  for (const block of blocks) {
    const current = pages[pages.length - 1];
    if (top - block.height - (block.keepWithNext ?? 0) < bodyBottom && current.length > 0) {
      pages.push([]);
      top = bodyTop(pages.length - 1);
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
