import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { Font } from '@pdf-lib/fontkit';
import { PDFString, type PDFContext, type PDFRef } from 'pdf-lib';
import type { LoadedFont } from './font-library.js';

// Type 0 font flags: Symbolic (the glyphs are addressed by id, not through a standard encoding).
const SYMBOLIC = 4;
const BFCHAR_BLOCK = 100;

/**
 * One font file embedded as a subset of the glyphs a PDF draws with it: a Type 0 font (Identity-H)
 * over a CIDFontType2, with a ToUnicode map from each code to the characters it was drawn for, so that text extraction gives back the text rather than glyph
 * ids (a shaped Arabic letter form maps to its letter, a ligature to its letters). The name carries
 * the six-letter subset tag of ISO 32000-1 §9.6.4, derived from the glyphs (identical input,
 * identical bytes).
 */
export class FontSubset {
  readonly ref: PDFRef;
  /** fontkit decodes the name table on every read of it. */
  readonly postscriptName: string;
  /** Per CID (the codes drawn): the font's glyph, its width, what it stands for. CID 0 is .notdef. */
  private readonly glyphOfCid: number[] = [0];
  private readonly widths: number[] = [0];
  private readonly unicode = new Map<number, string>();
  private readonly cids = new Map<string, number>();

  constructor(
    private readonly context: PDFContext,
    readonly loaded: LoadedFont,
  ) {
    this.ref = context.nextRef();
    this.postscriptName = loaded.font.postscriptName || 'Font';
  }

  /**
   * The 2-byte code that draws this glyph of the full font standing for `text` in the text layer.
   * ToUnicode has one entry per code, and shaping draws one glyph for different characters (Noto
   * Sans Arabic draws ة as the final form of ه plus two dots): each meaning of a glyph gets a code
   * of its own, all pointing to the one glyph of the subset (CIDToGIDMap).
   */
  code(glyphId: number, text: string): string {
    const key = `${glyphId}:${text}`;
    let cid = this.cids.get(key);
    if (cid === undefined) {
      cid = this.glyphOfCid.length;
      this.cids.set(key, cid);
      this.glyphOfCid.push(glyphId);
      this.widths.push(Math.round((this.loaded.font.getGlyph(glyphId).advanceWidth * 1000) / this.loaded.font.unitsPerEm));
      if (text) this.unicode.set(cid, text);
    }
    return cid.toString(16).padStart(4, '0');
  }

  /** Writes the font's objects under `ref`; call once, after the last `code()`. */
  async embed(): Promise<void> {
    const { context, loaded } = this;
    const { font } = loaded;
    const glyphs = [...new Set(this.glyphOfCid)].sort((a, b) => a - b);
    const program = await fontProgram(loaded, this.postscriptName, glyphs);
    const indexOf = new Map(glyphs.map((glyph, index) => [glyph, index + (glyphs[0] === 0 ? 0 : 1)]));
    const name = `${program.tag}+${this.postscriptName}`;
    const scale = 1000 / font.unitsPerEm;
    const descriptor = context.register(
      context.obj({
        Type: 'FontDescriptor',
        FontName: name,
        Flags: SYMBOLIC,
        FontBBox: [font.bbox.minX, font.bbox.minY, font.bbox.maxX, font.bbox.maxY].map((value) => Math.round(value * scale)),
        ItalicAngle: font.italicAngle,
        Ascent: Math.round(font.ascent * scale),
        Descent: Math.round(font.descent * scale),
        CapHeight: Math.round((font.capHeight || font.ascent) * scale),
        StemV: 0,
        FontFile2: context.register(context.stream(program.deflated, { Filter: 'FlateDecode', Length1: program.length })),
      }),
    );
    const cidFont = context.register(
      context.obj({
        Type: 'Font',
        Subtype: 'CIDFontType2',
        BaseFont: name,
        CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
        FontDescriptor: descriptor,
        W: [0, this.widths],
        CIDToGIDMap: context.register(context.flateStream(cidToGidMap(this.glyphOfCid.map((glyph) => indexOf.get(glyph)!)))),
      }),
    );
    context.assign(
      this.ref,
      context.obj({
        Type: 'Font',
        Subtype: 'Type0',
        BaseFont: name,
        Encoding: 'Identity-H',
        DescendantFonts: [cidFont],
        ToUnicode: context.register(context.flateStream(toUnicodeCMap(this.unicode))),
      }),
    );
  }
}

interface FontProgram {
  deflated: Uint8Array;
  length: number;
  tag: string;
}

/**
 * Subset programs already built in this thread, by font and glyph set. Building one (fontkit's
 * table encoding) is most of a signature stamp's cost, and every stamp of an institution draws the
 * same glyphs (its name, the hex digits of the uuid, its URL).
 */
const programs = new Map<string, Promise<FontProgram>>();
const PROGRAM_CACHE = 64;

/** The subset of `glyphs` (sorted; .notdef comes first in any case), compressed, with its tag. */
function fontProgram(loaded: LoadedFont, postscriptName: string, glyphs: number[]): Promise<FontProgram> {
  const key = `${postscriptName}:${glyphs.join(',')}`;
  let program = programs.get(key);
  if (!program) {
    program = (async () => {
      const subset = loaded.font.createSubset();
      for (const glyph of glyphs) subset.includeGlyph(glyph);
      const bytes = await encode(subset);
      return { deflated: deflateSync(bytes), length: bytes.length, tag: subsetTag(postscriptName, bytes) };
    })();
    if (programs.size >= PROGRAM_CACHE) programs.delete(programs.keys().next().value!);
    programs.set(key, program);
  }
  return program;
}

function cidToGidMap(glyphOfCid: number[]): Uint8Array {
  const map = new Uint8Array(glyphOfCid.length * 2);
  glyphOfCid.forEach((glyph, cid) => {
    map[cid * 2] = glyph >> 8;
    map[cid * 2 + 1] = glyph & 0xff;
  });
  return map;
}

/** Six capital letters from a digest of the subset: same glyphs, same tag; different subsets, different tags. */
export function subsetTag(postscriptName: string, fontFile: Uint8Array): string {
  const digest = createHash('sha256').update(postscriptName).update(fontFile).digest();
  return Array.from(digest.subarray(0, 6), (byte) => String.fromCharCode(65 + (byte % 26))).join('');
}

function encode(subset: ReturnType<Font['createSubset']>): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const stream = subset.encodeStream() as unknown as NodeJS.ReadableStream;
    stream.on('data', (part: Uint8Array) => parts.push(part));
    stream.on('end', () => resolve(Buffer.concat(parts)));
    stream.on('error', reject);
  });
}

function toUnicodeCMap(unicode: Map<number, string>): string {
  const entries = [...unicode].sort(([a], [b]) => a - b);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += BFCHAR_BLOCK) {
    const block = entries.slice(i, i + BFCHAR_BLOCK);
    blocks.push(`${block.length} beginbfchar`, ...block.map(([cid, text]) => `<${cid.toString(16).padStart(4, '0')}> <${utf16Hex(text)}>`), 'endbfchar');
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <ffff>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMapResource defineresource pop',
    'end',
    'end',
  ].join('\n');
}

function utf16Hex(text: string): string {
  let hex = '';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}
