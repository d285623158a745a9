import bidiModule, { type Bidi } from 'bidi-js';
import * as hb from 'harfbuzzjs';
import { faceFor, loadFace, type FontWeight } from './font-library.js';

/** One glyph of a run, in font units. */
export interface PlacedGlyph {
  id: number;
  advance: number;
  dx: number;
  dy: number;
  /** The characters it stands for in the text layer; '' for the later glyphs of one cluster. */
  text: string;
}

/** Glyphs of one family in drawing order (left to right). */
export interface GlyphRun {
  face: number;
  glyphs: PlacedGlyph[];
  /** Advance of the whole run in ems (multiply by the font size for points). */
  width: number;
  /**
   * The run's characters in logical order, set when the glyphs do not spell them left to right one
   * by one (right-to-left text, reordered or split clusters, placeholders): the PDF wraps the run in
   * a span with this `/ActualText`, which is what extraction and copying give back.
   */
  actualText?: string;
}

/** A line of text turned into glyph runs in visual order. */
export interface ShapedText {
  runs: GlyphRun[];
  width: number;
}

/**
 * Characters that need more than a glyph per character: right-to-left scripts (Hebrew, Arabic,
 * Syriac, Thaana, NKo…), Indic and South-East Asian scripts (reordering, conjuncts), bidi controls
 * and joiners, emoji (sequences, presentation selectors). Text without any takes the fast path.
 */
const NEEDS_SHAPING =
  /[\u0590-\u08ff\u0900-\u0dff\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u1800-\u18af\u200c-\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}\u{1f1e6}-\u{1f1ff}]|\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Variation_Selector}/u;
/**
 * Characters that belong to whatever script surrounds them: they stay in the run they follow when
 * its family has them. Spaces excepted: they take the primary family's width (Noto Emoji's is wide).
 */
const SHARED = /(?!\s)[\p{Script=Common}\p{Script=Inherited}]/u;
/** Combining marks and format characters stay with the run they follow instead of starting a new one. */
const FOLLOWS_RUN = /[\p{M}\p{Cf}]/u;
/** Drawn, from the primary family, for a character no family has: a visible mark, never an empty box. */
const PLACEHOLDER = 0xfffd;

// The package is CommonJS: Node hands its factory over as the default export.
const bidi = (bidiModule as unknown as () => Bidi)();
const buffer = new hb.Buffer();
const cache = new Map<string, ShapedText>();
const CACHE_LIMIT = 5000;

/**
 * Shapes one line for drawing with the fallback chain of font-library.ts: bidirectional levels
 * and visual order from bidi-js (Unicode Bidirectional Algorithm, paragraph direction from the first
 * strong character), glyph substitution and positioning from HarfBuzz (Arabic joining and ligatures,
 * Devanagari conjuncts and reordering, mark placement, emoji sequences). Text in scripts that need
 * neither (Latin, Greek, Cyrillic, CJK) maps each character to its cmap glyph without calling either
 * library: shaping costs only the names that need it. Results are cached per thread.
 */
export function shapeText(text: string, weight: FontWeight): ShapedText {
  const key = `${weight}\u0000${text}`;
  let shaped = cache.get(key);
  if (!shaped) {
    shaped = NEEDS_SHAPING.test(text) ? shapeComplex(text, weight) : mapCharacters(text, weight);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, shaped);
  }
  return shaped;
}

/** The fast path: one glyph per character, runs split where the family changes. */
function mapCharacters(text: string, weight: FontWeight): ShapedText {
  const runs: GlyphRun[] = [];
  for (const character of text) {
    const codePoint = character.codePointAt(0)!;
    const current = runs.at(-1);
    const covering = current && FOLLOWS_RUN.test(character) ? current.face : faceFor(codePoint);
    if (covering === undefined) {
      runs.push(placeholderRun(character, weight));
      continue;
    }
    const { font } = loadFace(covering, weight);
    const glyph = font.glyphForCodePoint(codePoint);
    const placed = { id: glyph.id, advance: glyph.advanceWidth, dx: 0, dy: 0, text: character };
    if (current?.face === covering && current.actualText === undefined) {
      current.glyphs.push(placed);
      current.width += placed.advance / font.unitsPerEm;
    } else runs.push({ face: covering, glyphs: [placed], width: placed.advance / font.unitsPerEm });
  }
  return { runs, width: runs.reduce((total, run) => total + run.width, 0) };
}

function placeholderRun(character: string, weight: FontWeight): GlyphRun {
  const { font } = loadFace(0, weight);
  const glyph = font.glyphForCodePoint(PLACEHOLDER);
  return {
    face: 0,
    glyphs: [{ id: glyph.id, advance: glyph.advanceWidth, dx: 0, dy: 0, text: '' }],
    width: glyph.advanceWidth / font.unitsPerEm,
    actualText: character,
  };
}

/** A stretch of the text in logical order with one embedding level and one family. */
interface Item {
  start: number;
  end: number;
  level: number;
  /** undefined: no family has these characters. */
  face: number | undefined;
}

function shapeComplex(text: string, weight: FontWeight): ShapedText {
  const { levels } = bidi.getEmbeddingLevels(text);
  const items: Item[] = [];
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index)!;
    const end = index + (codePoint > 0xffff ? 2 : 1);
    const character = text.slice(index, end);
    const current = items.at(-1);
    const level = levels[index]!;
    const keepsFamily =
      current?.face !== undefined &&
      current.level === level &&
      SHARED.test(character) &&
      (FOLLOWS_RUN.test(character) || loadFace(current.face, 'regular').font.hasGlyphForCodePoint(codePoint));
    const face = keepsFamily ? current.face : faceFor(codePoint);
    if (current && current.level === level && current.face === face && face !== undefined) current.end = end;
    else items.push({ start: index, end, level, face });
    index = end;
  }
  const runs = visualOrder(items).map((item) =>
    item.face === undefined ? placeholderRun(text.slice(item.start, item.end), weight) : shapeItem(text, item, item.face, weight),
  );
  return { runs, width: runs.reduce((total, run) => total + run.width, 0) };
}

/** Rule L2 of the bidi algorithm on items: from the highest level down to the lowest odd one, reverse every sequence at that level or above. */
function visualOrder(items: Item[]): Item[] {
  const ordered = [...items];
  const highest = Math.max(0, ...items.map((item) => item.level));
  const lowestOdd = Math.min(...items.map((item) => item.level | 1));
  for (let level = highest; level >= lowestOdd; level--) {
    for (let start = 0; start < ordered.length; start++) {
      if (ordered[start]!.level < level) continue;
      let end = start;
      while (end + 1 < ordered.length && ordered[end + 1]!.level >= level) end++;
      ordered.splice(start, end - start + 1, ...ordered.slice(start, end + 1).reverse());
      start = end;
    }
  }
  return ordered;
}

function shapeItem(text: string, item: Item, face: number, weight: FontWeight): GlyphRun {
  const loaded = loadFace(face, weight);
  const rightToLeft = item.level % 2 === 1;
  buffer.reset();
  // The whole line goes in as context, so joining and shaping see the neighbours of the item.
  buffer.addText(text, item.start, item.end - item.start);
  buffer.setDirection(rightToLeft ? hb.Direction.RTL : hb.Direction.LTR);
  // Marks keep clusters of their own, so each maps to its character in the text layer.
  buffer.setClusterLevel(hb.ClusterLevel.MONOTONE_CHARACTERS);
  buffer.guessSegmentProperties();
  hb.shape(loaded.shaper(), buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  const clusterStarts = [...new Set(infos.map((info) => info.cluster))].sort((a, b) => a - b);
  const clusterEnd = new Map(clusterStarts.map((start, i) => [start, clusterStarts[i + 1] ?? item.end]));
  // A cluster's characters go to its widest glyph (the base, not a mark or dots drawn apart from it).
  const carrier = new Map<number, number>();
  infos.forEach((info, i) => {
    const current = carrier.get(info.cluster);
    if (current === undefined || positions[i]!.xAdvance > positions[current]!.xAdvance) carrier.set(info.cluster, i);
  });
  let inOrder = true;
  const glyphs = infos.map((info, i) => {
    const position = positions[i]!;
    const carries = carrier.get(info.cluster) === i;
    if (!carries || (i > 0 && (rightToLeft ? info.cluster > infos[i - 1]!.cluster : info.cluster < infos[i - 1]!.cluster))) inOrder = false;
    const characters = carries ? text.slice(info.cluster, clusterEnd.get(info.cluster)) : '';
    return { id: info.codepoint, advance: position.xAdvance, dx: position.xOffset, dy: position.yOffset, text: characters };
  });
  const width = glyphs.reduce((total, glyph) => total + glyph.advance, 0) / loaded.font.unitsPerEm;
  const run: GlyphRun = { face, glyphs, width };
  // Not for right-to-left runs: readers (Poppler, pdf.js) put the glyphs of those back in logical
  // order themselves, and reverse an ActualText as well, so per-glyph ToUnicode is what reads right.
  if (!inOrder && !rightToLeft) {
    run.actualText = text.slice(item.start, item.end);
  }
  return run;
}
