import { deflateSync } from 'node:zlib';
import { PDFName, rgb, type PDFContext, type PDFOperator, type PDFRef } from 'pdf-lib';
import { qrModules } from './qr-code.js';
import { ellipsize, normalizeText, wrap } from './transcript-typesetting.js';
import { Typeface, type TextStyle, type TextTarget } from './typeface.js';

/** What the stamp says. */
export interface StampText {
  certificateId?: string;
  verificationUrl?: string;
  signerName?: string;
}

const PADDING = 6;
// The QR standard's quiet zone is four modules; the stamp's white background provides it.
const QUIET_MODULES = 4;
const MAX_SIZE = 9;
const MIN_READABLE_SIZE = 6;
const LEADING = 1.25;
const UUID_ALPHABET = '0123456789abcdef-';
const TEXT_COLOR = rgb(0.1, 0.1, 0.1);

/** A form XObject's content and the fonts its resources name. */
class FormText implements TextTarget {
  readonly operators: string[] = [];
  readonly fonts: Record<string, PDFRef> = {};

  fontName(font: PDFRef): PDFName {
    const existing = Object.entries(this.fonts).find(([, ref]) => ref === font);
    if (existing) return PDFName.of(existing[0]);
    const name = `F${Object.keys(this.fonts).length + 1}`;
    this.fonts[name] = font;
    return PDFName.of(name);
  }

  pushOperators(...operators: PDFOperator[]): void {
    this.operators.push(...operators.map((operator) => operator.toString()));
  }
}

/**
 * Registers the appearance stream (a form XObject `width` × `height`) of the visible signature: a
 * framed white box with a QR code of the verification URL on the left and, on the right, who signed,
 * the certificate id and "Verify at <url>", in the documents' embedded Unicode fonts (typeface.ts:
 * any script the signer's name is written in, shaped and in bidi order), never below 6 pt: text
 * that does not fit at 6 pt wraps, and what still does not fit is cut with an ellipsis.
 */
export async function registerStampAppearance(context: PDFContext, size: { width: number; height: number }, text: StampText): Promise<PDFRef> {
  const { width, height } = size;
  const operators: string[] = [
    'q 1 1 1 rg',
    `0 0 ${n(width)} ${n(height)} re f`,
    '0.25 0.3 0.45 RG 0.8 w',
    `0.4 0.4 ${n(width - 0.8)} ${n(height - 0.8)} re S`,
  ];
  let textLeft = PADDING;
  if (text.verificationUrl) {
    const qr = qrModules(text.verificationUrl);
    const side = height - 2 * PADDING;
    const module = side / (qr.size + 2 * QUIET_MODULES);
    const origin = PADDING + QUIET_MODULES * module;
    operators.push('0 0 0 rg');
    for (let row = 0; row < qr.size; row++) {
      for (let column = 0; column < qr.size; column++) {
        if (!qr.isDark(row, column)) continue;
        // One rectangle per horizontal run of dark modules; rows run downwards in the QR, upwards in PDF space.
        let end = column;
        while (end + 1 < qr.size && qr.isDark(row, end + 1)) end++;
        operators.push(`${n(origin + column * module)} ${n(origin + (qr.size - 1 - row) * module)} ${n((end - column + 1) * module)} ${n(module)} re`);
        column = end;
      }
    }
    operators.push('f');
    textLeft = PADDING + side + PADDING / 2;
  }
  operators.push('Q');

  const typeface = new Typeface(context);
  // Every stamp of an institution then has the same glyphs, whatever its uuid (the font program is reused).
  typeface.include(UUID_ALPHABET, 'regular');
  const form = new FormText();
  const available = { width: width - textLeft - PADDING, height: height - 2 * PADDING };
  const { lines, style } = layoutLines(typeface, stampParagraphs(text), available);
  // The text block centred vertically beside the QR code.
  const leading = style.size * LEADING;
  const top = (height + lines.length * leading) / 2 - style.size;
  lines.forEach((line, i) => typeface.draw(form, line, { x: textLeft, y: top - i * leading }, style));
  await typeface.flush();

  // Node's zlib: pdf-lib's flateStream deflates in JavaScript at several times the cost.
  const stream = context.stream(deflateSync([...operators, ...form.operators].join('\n')), {
    Filter: 'FlateDecode',
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Resources: { Font: form.fonts },
  });
  return context.register(stream);
}

function stampParagraphs({ certificateId, verificationUrl, signerName }: StampText): string[] {
  const name = signerName ? normalizeText(signerName) : '';
  const paragraphs = [name ? `Digitally signed by ${name}` : 'Digitally signed'];
  if (certificateId) paragraphs.push(`Certificate ${certificateId}`);
  if (verificationUrl) paragraphs.push(`Verify at ${verificationUrl}`);
  return paragraphs;
}

/**
 * The largest size from 9 pt down to 6 pt at which each paragraph fits on one line; failing that,
 * wrapped to the width, the size that fits the height in the fewest lines (the largest of those). At 6 pt they are wrapped
 * all the same and the lines past the height are dropped, the last kept one ending in an ellipsis
 * (only a very long name in a small box comes to that).
 */
function layoutLines(typeface: Typeface, paragraphs: string[], available: { width: number; height: number }): { lines: string[]; style: TextStyle } {
  const sizes = Array.from({ length: (MAX_SIZE - MIN_READABLE_SIZE) * 2 + 1 }, (_, i) => MAX_SIZE - i / 2);
  const room = (size: number) => Math.max(1, Math.floor((available.height - size) / (size * LEADING)) + 1);
  const styleOf = (size: number): TextStyle => ({ weight: 'regular', size, color: TEXT_COLOR });
  for (const size of sizes) {
    const style = styleOf(size);
    if (paragraphs.length <= room(size) && paragraphs.every((paragraph) => typeface.width(paragraph, style) <= available.width))
      return { lines: paragraphs, style };
  }
  let best: { lines: string[]; style: TextStyle } | undefined;
  for (const size of sizes) {
    const style = styleOf(size);
    const lines = paragraphs.flatMap((paragraph) => wrap(typeface, paragraph, style, available.width));
    if (lines.length <= room(size) && (!best || lines.length < best.lines.length)) best = { lines, style };
  }
  if (best) return best;
  const style = styleOf(MIN_READABLE_SIZE);
  const kept = paragraphs.flatMap((paragraph) => wrap(typeface, paragraph, style, available.width)).slice(0, room(MIN_READABLE_SIZE));
  kept[kept.length - 1] = ellipsize(typeface, `${kept.at(-1)!} …`, style, available.width);
  return { lines: kept, style };
}

const n = (value: number) => (Math.round(value * 1000) / 1000).toString();
