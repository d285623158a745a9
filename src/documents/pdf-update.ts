import { createHash, randomBytes } from 'node:crypto';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRef, PDFString, type PDFDocument, type PDFObject } from 'pdf-lib';

/** The last cross-reference section of a file, where an incremental update's /Prev points. */
export interface CrossReference {
  offset: number;
  kind: 'table' | 'stream';
  /** The /Size it declares: object numbers from here on are free for new objects. */
  size: number;
}

const TAIL_BYTES = 4096;

/** Reads `startxref` at the end of the file and the section it points to; undefined when either is missing or broken. */
export function lastCrossReference(pdf: Buffer): CrossReference | undefined {
  const tail = pdf.subarray(Math.max(0, pdf.length - TAIL_BYTES)).toString('latin1');
  const match = /startxref\s+(\d{1,12})\s/.exec(tail.slice(tail.lastIndexOf('startxref')));
  const offset = match ? Number(match[1]) : 0;
  if (!match || offset <= 0 || offset >= pdf.length) return undefined;
  const section = pdf.subarray(offset, Math.min(pdf.length, offset + 64)).toString('latin1');
  if (section.startsWith('xref')) {
    const trailer = pdf.indexOf('trailer', offset);
    const size = trailer < 0 ? undefined : sizeIn(pdf.subarray(trailer, Math.min(pdf.length, trailer + TAIL_BYTES)));
    return size === undefined ? undefined : { offset, kind: 'table', size };
  }
  if (!/^\d+\s+\d+\s+obj\b/.test(section)) return undefined;
  const dictionary = pdf.subarray(offset, Math.min(pdf.length, offset + TAIL_BYTES));
  const streamAt = dictionary.indexOf('stream');
  const head = dictionary.subarray(0, streamAt < 0 ? dictionary.length : streamAt);
  if (!/\/Type\s*\/XRef\b/.test(head.toString('latin1'))) return undefined;
  const size = sizeIn(head);
  return size === undefined ? undefined : { offset, kind: 'stream', size };
}

function sizeIn(bytes: Buffer): number | undefined {
  const match = /\/Size\s+(\d{1,9})\b/.exec(bytes.toString('latin1'));
  return match ? Number(match[1]) : undefined;
}

/** An object written out by the caller, e.g. a signature dictionary whose bytes are patched later. */
export interface RawObject {
  ref: PDFRef;
  body: Buffer;
}

/**
 * A revision appended to a loaded PDF (ISO 32000-1 §7.5.6): the original bytes stay untouched, the
 * objects created since loading and those marked changed are written after them, with a cross-reference
 * section of the same kind as the last one whose /Prev points back to it.
 */
export class PdfRevision {
  private readonly existing: Set<PDFRef>;
  private readonly changed = new Set<PDFRef>();

  constructor(
    readonly document: PDFDocument,
    private readonly original: Buffer,
    private readonly previous: CrossReference,
  ) {
    const { context } = document;
    this.existing = new Set(context.enumerateIndirectObjects().map(([ref]) => ref));
    // Numbers below the previous /Size may be free entries with raised generations: never reuse them.
    context.largestObjectNumber = Math.max(context.largestObjectNumber, previous.size - 1);
  }

  /** Marks an object of the original as rewritten in this revision. */
  changedObject(ref: PDFRef): void {
    this.changed.add(ref);
  }

  /**
   * The array held under `key` of `holder`, to be edited: an indirect array is marked changed, a
   * direct one makes its holder change.
   */
  editableArray(holderRef: PDFRef, holder: PDFDict, key: PDFName): PDFArray | undefined {
    const entry = holder.get(key);
    const value = entry instanceof PDFRef ? this.document.context.lookup(entry) : entry;
    if (!(value instanceof PDFArray)) return undefined;
    this.changed.add(entry instanceof PDFRef ? entry : holderRef);
    return value;
  }

  /** The original bytes followed by this revision: new and changed objects, `raw` ones, cross-reference and trailer. */
  write(raw: RawObject[] = []): Buffer {
    const { context } = this.document;
    const info = this.infoRef();
    const objects: RawObject[] = [];
    for (const [ref, object] of context.enumerateIndirectObjects()) {
      if (!this.existing.has(ref) || this.changed.has(ref)) objects.push({ ref, body: serialize(object) });
    }
    objects.push(...raw);
    const parts: Buffer[] = [this.original];
    let offset = this.original.length;
    const push = (bytes: Buffer) => {
      parts.push(bytes);
      offset += bytes.length;
    };
    if (!isEol(this.original[this.original.length - 1])) push(Buffer.from('\n'));
    const offsets = new Map<number, { offset: number; generation: number }>();
    for (const { ref, body } of objects) {
      offsets.set(ref.objectNumber, { offset, generation: ref.generationNumber });
      push(Buffer.concat([Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`), body, Buffer.from('\nendobj\n')]));
    }
    const trailer = `/Root ${String(context.trailerInfo.Root)}${info ? ` /Info ${String(info)}` : ''} /ID ${this.identifier()} /Prev ${this.previous.offset}`;
    const size = Math.max(this.previous.size, context.largestObjectNumber + 1);
    const xrefOffset = offset;
    if (this.previous.kind === 'table') {
      push(Buffer.from(`xref\n${tableEntries(offsets)}trailer\n<< /Size ${size} ${trailer} >>\n`, 'latin1'));
    } else {
      // The cross-reference stream is an object too: the next number after everything else.
      offsets.set(size, { offset: xrefOffset, generation: 0 });
      const { index, data } = streamEntries(offsets);
      const head = `${size} 0 obj\n<< /Type /XRef /Size ${size + 1} /W [1 4 2] /Index [${index}] ${trailer} /Length ${data.length} >>\nstream\n`;
      push(Buffer.concat([Buffer.from(head, 'latin1'), data, Buffer.from('\nendstream\nendobj\n')]));
    }
    push(Buffer.from(`startxref\n${xrefOffset}\n%%EOF\n`));
    return Buffer.concat(parts);
  }

  /** The info dictionary as an indirect object (an update's trailer names it by reference), written in this revision. */
  private infoRef(): PDFRef | undefined {
    const { context } = this.document;
    const info = context.trailerInfo.Info;
    if (info === undefined) return undefined;
    if (info instanceof PDFRef) {
      // The signer writes the credential reference into it; rewriting an unchanged one costs a few bytes.
      this.changed.add(info);
      return info;
    }
    const ref = context.register(info as PDFDict);
    context.trailerInfo.Info = ref;
    return ref;
  }

  /** The file's permanent identifier kept, the changing one new (ISO 32000-1 §14.4). */
  private identifier(): string {
    const id = this.document.context.trailerInfo.ID;
    const first = id instanceof PDFArray ? id.get(0) : undefined;
    const fresh = PDFHexString.of(createHash('md5').update(randomBytes(16)).digest('hex')).toString();
    return `[${first instanceof PDFHexString || first instanceof PDFString ? String(first) : fresh} ${fresh}]`;
  }
}

function serialize(object: PDFObject): Buffer {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const isEol = (byte: number | undefined) => byte === 0x0a || byte === 0x0d;

/** Consecutive object numbers as [first, count] runs. */
function runs(numbers: number[]): [number, number][] {
  const result: [number, number][] = [];
  for (const number of [...numbers].sort((a, b) => a - b)) {
    const last = result[result.length - 1];
    if (last && last[0] + last[1] === number) last[1]++;
    else result.push([number, 1]);
  }
  return result;
}

/** Classic subsections: 20-byte entries, `nnnnnnnnnn ggggg n` and a two-byte end of line. */
function tableEntries(offsets: Map<number, { offset: number; generation: number }>): string {
  let text = '';
  for (const [first, count] of runs([...offsets.keys()])) {
    text += `${first} ${count}\n`;
    for (let number = first; number < first + count; number++) {
      const { offset, generation } = offsets.get(number)!;
      text += `${String(offset).padStart(10, '0')} ${String(generation).padStart(5, '0')} n\r\n`;
    }
  }
  return text;
}

/** Cross-reference stream rows with widths [1 4 2]: type 1, byte offset, generation. */
function streamEntries(offsets: Map<number, { offset: number; generation: number }>) {
  const groups = runs([...offsets.keys()]);
  const data = Buffer.alloc(offsets.size * 7);
  let row = 0;
  for (const [first, count] of groups) {
    for (let number = first; number < first + count; number++, row++) {
      const { offset, generation } = offsets.get(number)!;
      data.writeUInt8(1, row * 7);
      data.writeUInt32BE(offset, row * 7 + 1);
      data.writeUInt16BE(generation, row * 7 + 5);
    }
  }
  return { index: groups.map(([first, count]) => `${first} ${count}`).join(' '), data };
}
