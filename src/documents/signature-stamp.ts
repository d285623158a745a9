import { deflateSync } from 'node:zlib';
import { PDFName, StandardFontEmbedder, StandardFonts, type PDFContext, type PDFRef } from 'pdf-lib';
import { qrModules } from './qr-code.js';

/**
 * Where the visible signature goes, in PDF points from the bottom-left corner of the page's visible
 * area. A template's `design_config.seal` sets any of these (docs/documents.md › Signature stamp).
 */
export interface SealPlacement {
  page: 'first' | 'last';
  /** Left edge; undefined: right-aligned with the margin. */
  x?: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_SEAL: SealPlacement = { page: 'first', y: 24, width: 270, height: 84 };
const LIMITS = { width: [150, 600], height: [60, 300] } as const;
export const SEAL_MARGIN = 24;

/** The template's seal settings over the defaults; values of the wrong type or out of range are ignored. */
export function sealPlacement(designConfig: unknown): SealPlacement {
  const seal = isRecord(designConfig) && isRecord(designConfig.seal) ? designConfig.seal : {};
  const number = (key: string, [min, max]: readonly [number, number] = [0, 100_000]) => {
    const value = seal[key];
    return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  };
  return {
    page: seal.page === 'last' ? 'last' : 'first',
    x: number('x'),
    y: number('y') ?? DEFAULT_SEAL.y,
    width: number('width', LIMITS.width) ?? DEFAULT_SEAL.width,
    height: number('height', LIMITS.height) ?? DEFAULT_SEAL.height,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let metrics: StandardFontEmbedder | undefined;
/** Helvetica's metrics, loaded once per thread (decoding them costs more than drawing the stamp). */
function helvetica(): StandardFontEmbedder {
  metrics ??= StandardFontEmbedder.for(StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0]);
  return metrics;
}

/** What the stamp says. */
export interface StampText {
  certificateId?: string;
  verificationUrl?: string;
  signerName?: string;
}

const FONT = PDFName.of('F1');
const PADDING = 6;
// The QR standard's quiet zone is four modules; the stamp's white background provides it.
const QUIET_MODULES = 4;
const MIN_READABLE_SIZE = 6;
const MAX_NAME = 48;

/**
 * Registers the appearance stream (a form XObject `width` × `height`) of the visible signature: a
 * framed white box with a QR code of the verification URL on the left and, on the right, who signed,
 * the certificate id and "Verify at <url>". Helvetica (WinAnsi) only: every line is ASCII or Latin-1
 * (uuids and URLs; a signer name outside Latin-1 is left out rather than shown as '?').
 */
export function registerStampAppearance(context: PDFContext, size: { width: number; height: number }, text: StampText): PDFRef {
  const font = helvetica();
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
  const available = width - textLeft - PADDING;
  const fit = (lines: string[]) => ({ lines, size: fittingSize(font, lines, available, (height - 2 * PADDING) / (lines.length * 1.25)) });
  // "Verify at <url>" on one line unless that makes the text too small to read.
  const oneLine = fit(stampLines(text, false));
  const { lines, size: fontSize } = oneLine.size >= MIN_READABLE_SIZE ? oneLine : fit(stampLines(text, true));
  // The text block centred vertically beside the QR code.
  const leading = fontSize * 1.25;
  operators.push('0.1 0.1 0.1 rg', 'BT', `/${FONT.asString().slice(1)} ${n(fontSize)} Tf`, `${n(leading)} TL`);
  const top = (height + lines.length * leading) / 2 - fontSize;
  operators.push(`${n(textLeft)} ${n(top)} Td`);
  for (const [i, line] of lines.entries()) operators.push(`${i === 0 ? '' : 'T* '}${font.encodeText(line).toString()} Tj`);
  operators.push('ET', 'Q');

  const fontRef = font.embedIntoContext(context);
  // Node's zlib: pdf-lib's flateStream deflates in JavaScript at several times the cost.
  const stream = context.stream(deflateSync(operators.join('\n')), {
    Filter: 'FlateDecode',
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Resources: { Font: { [FONT.asString().slice(1)]: fontRef } },
  });
  return context.register(stream);
}

function stampLines({ certificateId, verificationUrl, signerName }: StampText, splitUrl: boolean): string[] {
  const latin1 = (value: string) => /^[\x20-\x7e\xa0-\xff]*$/.test(value);
  const name = signerName && latin1(signerName) ? (signerName.length > MAX_NAME ? `${signerName.slice(0, MAX_NAME - 3)}...` : signerName) : undefined;
  const lines = [name ? `Digitally signed by ${name}` : 'Digitally signed'];
  if (certificateId) lines.push(`Certificate ${certificateId}`);
  if (verificationUrl && latin1(verificationUrl)) lines.push(...(splitUrl ? ['Verify at', verificationUrl] : [`Verify at ${verificationUrl}`]));
  return lines;
}

/** The largest size up to `maxSize` at which every line fits `width`; long lines shrink the text, never overflow the box past legibility. */
function fittingSize(font: StandardFontEmbedder, lines: string[], width: number, maxSize: number): number {
  const widest = Math.max(...lines.map((line) => font.widthOfTextAtSize(line, 1)));
  return Math.max(4, Math.min(maxSize, 9, width / widest));
}

const n = (value: number) => (Math.round(value * 1000) / 1000).toString();
