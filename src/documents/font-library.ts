import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit, { type Font } from '@pdf-lib/fontkit';
import type { PDFDocument } from 'pdf-lib';

type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];

export type FontWeight = 'regular' | 'bold';

/** One family of the fallback chain: TrueType files shipped by npm packages (SIL Open Font License). */
interface FaceFiles {
  name: string;
  files: Record<FontWeight, string>;
}

/**
 * Noto Sans draws Latin (Vietnamese included), Greek and Cyrillic; Noto Sans SC adds Han ideographs
 * and Japanese kana, Noto Sans KR Hangul. The CJK files are 6 to 10 MB each, so they are read only
 * when some text needs one of their glyphs.
 */
const FACES: readonly FaceFiles[] = [
  {
    name: 'NotoSans',
    files: { regular: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf', bold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf' },
  },
  {
    name: 'NotoSansSC',
    files: {
      regular: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
      bold: '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf',
    },
  },
  {
    name: 'NotoSansKR',
    files: {
      regular: '@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf',
      bold: '@expo-google-fonts/noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf',
    },
  },
];

/** How many parsed uploaded fonts a thread keeps. */
const MAX_UPLOADED_FONTS = 8;
const uploaded = new Map<string, LoadedFont>();

/**
 * An uploaded TTF/OTF file parsed for drawing, kept by its file uuid (a file's bytes never change
 * under its uuid): the same `forPdf` view as the bundled faces. DocumentError-free: callers check
 * the font when the template is saved (`checkUploadedFont`).
 */
export function loadUploadedFont(fileUuid: string, bytes: Uint8Array): LoadedFont {
  let entry = uploaded.get(fileUuid);
  if (!entry) {
    entry = parseFont(bytes);
    if (uploaded.size >= MAX_UPLOADED_FONTS) uploaded.delete(uploaded.keys().next().value!);
    uploaded.set(fileUuid, entry);
  }
  return entry;
}

/** A font file read and parsed: its bytes for pdf-lib, its parsed tables for cmap look-ups and layout. */
export interface LoadedFont {
  bytes: Uint8Array;
  font: Font;
  /** Advance width in font units of the glyph the cmap gives this code point (.notdef's when none). */
  advance(codePoint: number): number;
}

const resolve = createRequire(import.meta.url).resolve;

/**
 * Fonts read and parsed at most once per thread (documents are built on worker threads, each with
 * its own copy), then shared by every document the thread builds.
 */
const loaded = new Map<string, LoadedFont>();
const parsedByBytes = new WeakMap<Uint8Array, Font>();

function load(path: string): LoadedFont {
  let entry = loaded.get(path);
  if (!entry) {
    entry = parseFont(new Uint8Array(readFileSync(resolve(path))));
    loaded.set(path, entry);
  }
  return entry;
}

/** A font file parsed for pdf-lib (`forPdf`), which `cachingFontkit` hands pdf-lib for these bytes instead of parsing them again. */
export function parseFont(bytes: Uint8Array): LoadedFont {
  const font = forPdf(fontkit.create(bytes));
  const advances = new Map<number, number>();
  const advance = (codePoint: number) => {
    let width = advances.get(codePoint);
    if (width === undefined) advances.set(codePoint, (width = font.glyphForCodePoint(codePoint).advanceWidth));
    return width;
  };
  parsedByBytes.set(bytes, font);
  return { bytes, font, advance };
}

/**
 * A view of the parsed font for pdf-lib with two changes:
 * - `layout` maps each character to its cmap glyph, with no OpenType shaping. pdf-lib calls it for
 *   every string it draws; fontkit's shaper (GSUB/GPOS plans, even with every feature off) made up
 *   most of a transcript's rendering time, its decomposition glyphs broke text extraction (a
 *   decomposed "ị" came out of pdftotext as "i"), and NFC text in these scripts needs none of it.
 * - `createSubset` pads each copied glyph to an even length. The subset writes the short `loca`
 *   format (offsets / 2) when small, and Noto's unhinted glyphs have odd lengths: unpadded, every
 *   glyph after the first odd one pointed into the middle of its neighbour and drew as nothing.
 */
function forPdf(font: Font): Font {
  const layout = (text: string) => ({ glyphs: Array.from(text, (character) => font.glyphForCodePoint(character.codePointAt(0)!)) });
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
  return Object.create(font, { layout: { value: layout }, createSubset: { value: createSubset } }) as Font;
}

/** The parts of fontkit's TrueType subset (1.x) that `forPdf` relies on. */
interface SubsetInternals {
  glyf: Buffer[];
  offset: number;
  _addGlyph(glyphId: number): number;
}

/** The number of families in the chain; index 0 is the primary face. */
export const FACE_COUNT = FACES.length;

export function faceName(face: number): string {
  return FACES[face].name;
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

/**
 * pdf-lib's fontkit hook, answering with the already parsed font for bytes of this library instead
 * of parsing the file again for every document.
 */
export const cachingFontkit: Fontkit = {
  create: (bytes: Uint8Array, postscriptName?: string) => (parsedByBytes.get(bytes) ?? fontkit.create(bytes, postscriptName)) as ReturnType<Fontkit['create']>,
};
