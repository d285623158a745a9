/**
 * Just enough ASN.1 DER to write and read CMS SignedData over Buffers. The reader keeps each
 * element's exact bytes, because a CMS signature covers the signed attributes as they were encoded,
 * not as a library would re-encode them.
 */

export const Tag = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Context-specific tag number n, constructed (as used by EXPLICIT and IMPLICIT SET/SEQUENCE). */
export const contextTag = (n: number) => 0xa0 | n;

export interface DerElement {
  tag: number;
  /** The whole element: tag, length and value. */
  raw: Buffer;
  /** The value bytes only. */
  value: Buffer;
  children: DerElement[];
}

const MAX_DEPTH = 32;

export class DerError extends Error {}

/** Parses one element at the start of `bytes`; trailing bytes (e.g. zero padding) are ignored. */
export function readDer(bytes: Buffer): DerElement {
  return readElement(bytes, 0, 0).element;
}

function readElement(bytes: Buffer, start: number, depth: number): { element: DerElement; end: number } {
  if (depth > MAX_DEPTH) throw new DerError('ASN.1 nesting too deep');
  if (start + 2 > bytes.length) throw new DerError('ASN.1 element truncated');
  const tag = bytes[start];
  if ((tag & 0x1f) === 0x1f) throw new DerError('ASN.1 high tag numbers are not supported');
  const constructed = (tag & 0x20) !== 0;
  let offset = start + 1;
  const first = bytes[offset++];
  if (first === 0x80) return readIndefinite(bytes, start, offset, tag, depth);
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count > 4 || offset + count > bytes.length) throw new DerError('ASN.1 length invalid');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset++];
  }
  const end = offset + length;
  if (end > bytes.length) throw new DerError('ASN.1 element truncated');
  const value = bytes.subarray(offset, end);
  const children: DerElement[] = [];
  for (let at = offset; constructed && at < end;) {
    const child = readElement(bytes, at, depth + 1);
    if (child.end > end) throw new DerError('ASN.1 element overruns its parent');
    children.push(child.element);
    at = child.end;
  }
  return { element: { tag, raw: bytes.subarray(start, end), value, children }, end };
}

/** BER indefinite length, which some signers emit for the outer CMS layers. */
function readIndefinite(bytes: Buffer, start: number, offset: number, tag: number, depth: number) {
  if ((tag & 0x20) === 0) throw new DerError('ASN.1 indefinite length on a primitive');
  const children: DerElement[] = [];
  let at = offset;
  for (;;) {
    if (at + 2 > bytes.length) throw new DerError('ASN.1 end-of-contents missing');
    if (bytes[at] === 0 && bytes[at + 1] === 0) break;
    const child = readElement(bytes, at, depth + 1);
    children.push(child.element);
    at = child.end;
  }
  const end = at + 2;
  const element = { tag, raw: bytes.subarray(start, end), value: bytes.subarray(offset, at), children };
  return { element, end };
}

export function decodeOid(value: Buffer): string {
  const parts: number[] = [];
  let current = 0;
  for (const byte of value) {
    current = current * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      parts.push(current);
      current = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join('.');
}

/** The text of a directory string (the kinds found in certificate names). */
export function decodeString(element: DerElement): string {
  if (element.tag === Tag.BMP_STRING) {
    const even = Buffer.from(element.value.subarray(0, element.value.length & ~1));
    return even.swap16().toString('utf16le');
  }
  if (element.tag === Tag.T61_STRING) return element.value.toString('latin1');
  return element.value.toString('utf8');
}

/** UTCTime or GeneralizedTime in the Z form CMS requires. */
export function decodeTime(element: DerElement): Date | undefined {
  const text = element.value.toString('latin1');
  const match = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:\.\d+)?Z$/.exec(text);
  if (!match) return undefined;
  let year = Number(match[1]);
  if (match[1].length === 2) year += year < 50 ? 2000 : 1900;
  const [month, day, hour, minute, second] = match.slice(2).map((part) => Number(part ?? 0));
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

// ---- writing ----

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const value = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), encodeLength(value.length), value]);
}

export const sequence = (...content: Buffer[]) => tlv(Tag.SEQUENCE, ...content);
export const set = (...content: Buffer[]) => tlv(Tag.SET, ...content);
export const octetString = (value: Buffer) => tlv(Tag.OCTET_STRING, value);
export const derNull = () => tlv(Tag.NULL);

export function integer(value: number): Buffer {
  return tlv(Tag.INTEGER, Buffer.from([value]));
}

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(Tag.OID, Buffer.from(bytes));
}

/** UTCTime until 2049 and GeneralizedTime after, as RFC 5280 and CMS require. */
export function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(Tag.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`, 'latin1'));
  return tlv(Tag.GENERALIZED_TIME, Buffer.from(`${digits}Z`, 'latin1'));
}
