import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit, { type Font } from '@pdf-lib/fontkit';
import * as hb from 'harfbuzzjs';

export type FontWeight = 'regular' | 'bold';

/** One family of the fallback chain: TrueType files shipped by npm packages (SIL Open Font License). */
interface FaceFiles {
  files: Record<FontWeight, string>;
}

const noto = (family: string, file: string): FaceFiles => ({
  files: {
    regular: `@expo-google-fonts/${family}/400Regular/${file}_400Regular.ttf`,
    bold: `@expo-google-fonts/${family}/700Bold/${file}_700Bold.ttf`,
  },
});

/**
 * Noto Sans draws Latin (Vietnamese included), Greek and Cyrillic; then the scripts it lacks:
 * Arabic, Hebrew, Devanagari, monochrome emoji (Noto Emoji), Han ideographs with Japanese kana
 * (Noto Sans SC) and Hangul (Noto Sans KR). The CJK files are 6 to 10 MB each and come last, so
 * they are read only when some text needs one of their glyphs.
 */
const FACES: readonly FaceFiles[] = [
  noto('noto-sans', 'NotoSans'),
  noto('noto-sans-arabic', 'NotoSansArabic'),
  noto('noto-sans-hebrew', 'NotoSansHebrew'),
  noto('noto-sans-devanagari', 'NotoSansDevanagari'),
  noto('noto-emoji', 'NotoEmoji'),
  noto('noto-sans-sc', 'NotoSansSC'),
  noto('noto-sans-kr', 'NotoSansKR'),
];

/** How many parsed uploaded fonts a thread keeps. */
const MAX_UPLOADED_FONTS = 8;
const uploaded = new Map<string, LoadedFont>();

/**
 * An uploaded TTF/OTF file parsed for drawing, kept by its cache key (tenant, file uuid and SHA-256:
 * LayoutFile.cacheKey), so one tenant's font never draws another's text: the same `forPdf` view as
 * the bundled faces. DocumentError-free: callers check the font when the template is saved
 * (`checkUploadedFont`).
 */
export function loadUploadedFont(cacheKey: string, bytes: Uint8Array): LoadedFont {
  let entry = uploaded.get(cacheKey);
  if (!entry) {
    entry = parseFont(bytes);
    if (uploaded.size >= MAX_UPLOADED_FONTS) uploaded.delete(uploaded.keys().next().value!);
    uploaded.set(cacheKey, entry);
  }
  return entry;
}

/** A font file read and parsed: its bytes, its parsed tables for cmap look-ups and subsets, its shaper. */
export interface LoadedFont {
  bytes: Uint8Array;
  font: Font;
  /** Advance width in font units of the glyph the cmap gives this code point (.notdef's when none). */
  advance(codePoint: number): number;
  /** HarfBuzz's view of the same file, created on first use (only text that needs shaping asks for it). */
  shaper(): hb.Font;
}

const resolve = createRequire(import.meta.url).resolve;

/**
 * Fonts read and parsed at most once per thread (documents are built on worker threads, each with
 * its own copy), then shared by every document the thread builds.
 */
const loaded = new Map<string, LoadedFont>();

function load(path: string): LoadedFont {
  let entry = loaded.get(path);
  if (!entry) {
    entry = parseFont(new Uint8Array(readFileSync(resolve(path))));
    loaded.set(path, entry);
  }
  return entry;
}

/** A font file parsed once: fontkit's tables (subsets padded, see below), advances cached, HarfBuzz on demand. */
export function parseFont(bytes: Uint8Array): LoadedFont {
  const font = withEvenSubsetGlyphs(fontkit.create(bytes));
  const advances = new Map<number, number>();
  const advance = (codePoint: number) => {
    let width = advances.get(codePoint);
    if (width === undefined) advances.set(codePoint, (width = font.glyphForCodePoint(codePoint).advanceWidth));
    return width;
  };
  let shaper: hb.Font | undefined;
  return { bytes, font, advance, shaper: () => (shaper ??= new hb.Font(new hb.Face(new hb.Blob(bytes)))) };
}

/**
 * The parsed font with `createSubset` padding each copied glyph to an even length. The subset
 * writes the short `loca` format (offsets / 2) when small, and Noto's unhinted glyphs have odd
 * lengths: unpadded, every glyph after the first odd one pointed into the middle of its neighbour
 * and drew as nothing.
 */
function withEvenSubsetGlyphs(font: Font): Font {
  const createSubset = () => {
    const subset = font.createSubset() as unknown as SubsetInternals;
    const addGlyph = subset._addGlyph;
    subset._addGlyph = function (this: SubsetInternals, glyphId: number) {
      const index = addGlyph.call(this, glyphId);
      const data = this.glyf[index];
      if (data.length % 2 === 1) {
        // fontkit's bundled Buffer class, which its encoder insists on.
        const padded = (data.constructor as typeof Buffer).alloc(data.length + 1);
        padded.set(data);
        this.glyf[index] = padded;
        this.offset += 1;
      }
      return index;
    };
    return subset;
  };
  return Object.create(font, { createSubset: { value: createSubset } }) as Font;
}

/** The parts of fontkit's TrueType subset (1.x) that `withEvenSubsetGlyphs` relies on. */
interface SubsetInternals {
  glyf: Buffer[];
  offset: number;
  _addGlyph(glyphId: number): number;
}

export function loadFace(face: number, weight: FontWeight): LoadedFont {
  return load(FACES[face].files[weight]);
}

/**
 * The first family whose cmap has this code point, or undefined when none has it. Only the
 * regular weights are consulted: each family's bold file covers the same characters.
 */
export function faceFor(codePoint: number): number | undefined {
  if (faceByCodePoint.has(codePoint)) return faceByCodePoint.get(codePoint);
  let found: number | undefined;
  for (let face = 0; face < FACES.length && found === undefined; face++) {
    if (loadFace(face, 'regular').font.hasGlyphForCodePoint(codePoint)) found = face;
  }
  faceByCodePoint.set(codePoint, found);
  return found;
}

const faceByCodePoint = new Map<number, number | undefined>();

/** Reads the primary family now, so a thread's first document does not pay for it. */
export function preloadPrimaryFace(): void {
  loadFace(0, 'regular');
  loadFace(0, 'bold');
}
