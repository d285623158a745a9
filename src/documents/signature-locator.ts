/** A signature of a PDF as raw bytes: where it claims to cover, and the CMS in its hole. */
export interface LocatedSignature {
  /** [start1, length1, start2, length2] as written in /ByteRange. */
  byteRange: [number, number, number, number];
  /** The CMS bytes from /Contents, zero padding included; undefined when the hole is not one hex string. */
  cms?: Buffer;
}

const BYTE_RANGE = Buffer.from('/ByteRange');
const RANGE_PATTERN = /^\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s*\]/;
const HEX_HOLE = /^<([0-9A-Fa-f\s]*)>$/;

/** Every signature of the file, in the order their dictionaries appear; at most `limit`. */
export function locateSignatures(pdf: Buffer, limit: number): LocatedSignature[] {
  const found: LocatedSignature[] = [];
  for (let at = pdf.indexOf(BYTE_RANGE); at >= 0 && found.length < limit; at = pdf.indexOf(BYTE_RANGE, at + 1)) {
    const located = locateAt(pdf, at);
    if (located && !found.some((other) => other.byteRange.every((n, i) => n === located.byteRange[i]))) found.push(located);
  }
  return found;
}

/**
 * Reads the /ByteRange at `at` and the hole it leaves. The hole must be exactly one hex string
 * (the /Contents value); anything else there would be unsigned content a viewer might still show,
 * so such a signature is reported without CMS (unreadable), never skipped.
 */
function locateAt(pdf: Buffer, at: number): LocatedSignature | undefined {
  const text = pdf.subarray(at + BYTE_RANGE.length, at + BYTE_RANGE.length + 80).toString('latin1');
  const match = RANGE_PATTERN.exec(text);
  if (!match) return undefined;
  const byteRange = match.slice(1, 5).map(Number) as LocatedSignature['byteRange'];
  const [start1, length1, start2, length2] = byteRange;
  if (start1 + length1 >= start2 || start2 + length2 > pdf.length) return undefined;
  const hole = HEX_HOLE.exec(pdf.subarray(start1 + length1, start2).toString('latin1'));
  return { byteRange, cms: hole ? Buffer.from(hole[1].replace(/\s+/g, ''), 'hex') : undefined };
}

/** The two covered parts, in order, without copying. */
export function coveredParts(pdf: Buffer, [start1, length1, start2, length2]: LocatedSignature['byteRange']) {
  return [pdf.subarray(start1, start1 + length1), pdf.subarray(start2, start2 + length2)];
}
