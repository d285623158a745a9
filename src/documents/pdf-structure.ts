import { constants, inflateSync } from 'node:zlib';

/**
 * Limits no certificate PDF comes near, checked on the raw bytes before pdf-lib sees them. pdf-lib
 * allocates an entry per declared xref slot and per object, and inflates object and xref streams in
 * full, so a few kilobytes that declare absurd sizes would otherwise cost gigabytes.
 */
export const PDF_LIMITS = {
  /** Indirect objects, declared (/Size, /Index, /N of object streams) or written out. */
  objects: 100_000,
  /** Nesting of arrays and dictionaries. */
  nesting: 64,
  /** Inflated bytes of one object or xref stream, and of all of them together. */
  inflatedStream: 64 * 1024 * 1024,
  inflatedTotal: 256 * 1024 * 1024,
  /** Signatures (/ByteRange entries) a file may carry. */
  signatures: 8,
} as const;

const SIZE = /\/Size\s+(\d{1,15})/g;
const OBJECT_COUNT = /\/N\s+(\d{1,15})/g;
const INDEX = /\/Index\s*\[([\d\s]{0,4096})\]/g;
const WIDTHS = /\/W\s*\[\s*(\d{1,15})\s+(\d{1,15})\s+(\d{1,15})\s*\]/g;
const LENGTH = /\/Length\s+(\d{1,15})(?!\d)(?!\s+\d+\s+R)/g;
const BYTE_RANGE = /\/ByteRange/g;

/** Why the bytes exceed a limit, or undefined when pdf-lib may parse them. Linear in the file size. */
export function checkPdfStructure(pdf: Buffer): string | undefined {
  const text = pdf.toString('latin1');
  const numbers = (pattern: RegExp) => [...text.matchAll(pattern)].map((match) => Number(match[1]));
  if (numbers(SIZE).some((size) => size > PDF_LIMITS.objects)) return 'its cross-reference table declares too many objects.';
  const declared = numbers(OBJECT_COUNT).reduce((sum, n) => sum + n, 0);
  const indexed = [...text.matchAll(INDEX)].flatMap((match) => match[1].trim().split(/\s+/).map(Number));
  if (declared > PDF_LIMITS.objects || indexed.some((n) => n > PDF_LIMITS.objects)) return 'it declares too many objects.';
  if (countObjects(pdf) > PDF_LIMITS.objects) return 'it holds too many objects.';
  if ([...text.matchAll(WIDTHS)].some((match) => match.slice(1, 4).some((width) => Number(width) > 8))) {
    return 'its cross-reference stream is malformed.';
  }
  if (numbers(LENGTH).some((length) => length > pdf.length)) return 'a stream claims to be longer than the file.';
  if (count(text, BYTE_RANGE) > PDF_LIMITS.signatures) return 'it carries too many signatures.';
  return scanObjects(pdf);
}

function count(text: string, pattern: RegExp): number {
  let n = 0;
  for (const _ of text.matchAll(pattern)) n++;
  return n;
}

const OBJ = Buffer.from('obj');
const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;

/** `N G obj` headers: an `obj` keyword after whitespace after a digit (a regex backtracks on every digit of the file). */
function countObjects(pdf: Buffer): number {
  let objects = 0;
  for (let at = pdf.indexOf(OBJ); at >= 0; at = pdf.indexOf(OBJ, at + 3)) {
    if (isSpace(pdf[at - 1]) && !isLetter(pdf[at + 3])) {
      let before = at - 1;
      while (before > 0 && isSpace(pdf[before])) before--;
      if (isDigit(pdf[before])) objects++;
    }
  }
  return objects;
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const isEol = (byte: number | undefined) => byte === 0x0a || byte === 0x0d;
const isLetter = (byte: number | undefined) => byte !== undefined && (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a;

/** One pass over the tokens that matter: nesting depth, and the inflated size of the streams pdf-lib decodes at load. */
function scanObjects(pdf: Buffer): string | undefined {
  let depth = 0;
  const inflated = { total: 0 };
  for (let at = 0; at < pdf.length; at++) {
    const byte = pdf[at];
    if (byte === 0x25) at = endOfLine(pdf, at);
    else if (byte === 0x28) at = endOfLiteral(pdf, at);
    else if (byte === 0x5b || (byte === 0x3c && pdf[at + 1] === 0x3c)) {
      if (byte === 0x3c) at++;
      if (++depth > PDF_LIMITS.nesting) return 'its objects are nested too deeply.';
    } else if (byte === 0x5d || (byte === 0x3e && pdf[at + 1] === 0x3e)) {
      if (byte === 0x3e) at++;
      depth = Math.max(0, depth - 1);
    } else if (byte === 0x3c) at = Math.max(at, pdf.indexOf(0x3e, at));
    else if (byte === 0x73 && !isLetter(pdf[at - 1]) && pdf.subarray(at, at + 6).equals(STREAM) && isEol(pdf[at + 6])) {
      const start = at + (pdf[at + 6] === 0x0d && pdf[at + 7] === 0x0a ? 8 : 7);
      const end = pdf.indexOf(END_STREAM, start);
      const refused = checkDecodedStream(pdf, at, start, end < 0 ? pdf.length : end, inflated);
      if (refused) return refused;
      if (end < 0) break;
      at = end + END_STREAM.length - 1;
      depth = 0;
    }
  }
  return undefined;
}

function endOfLine(pdf: Buffer, at: number): number {
  while (at < pdf.length && !isEol(pdf[at])) at++;
  return at;
}

function endOfLiteral(pdf: Buffer, at: number): number {
  let open = 0;
  for (; at < pdf.length; at++) {
    const byte = pdf[at];
    if (byte === 0x5c) at++;
    else if (byte === 0x28) open++;
    else if (byte === 0x29 && --open === 0) return at;
  }
  return at;
}

/** Object and xref streams are inflated by pdf-lib while loading: bound what they inflate to. */
function checkDecodedStream(pdf: Buffer, keyword: number, start: number, end: number, inflated: { total: number }): string | undefined {
  const dictionary = pdf.subarray(Math.max(0, pdf.lastIndexOf('obj', keyword)), keyword).toString('latin1');
  if (!/\/(ObjStm|XRef)\b/.test(dictionary) || !/\/FlateDecode\b/.test(dictionary)) return undefined;
  const budget = Math.min(PDF_LIMITS.inflatedStream, PDF_LIMITS.inflatedTotal - inflated.total);
  try {
    inflated.total += inflateSync(pdf.subarray(start, end), { maxOutputLength: Math.max(1, budget), finishFlush: constants.Z_SYNC_FLUSH }).length;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'a compressed stream inflates to too many bytes.';
  }
  return undefined;
}
