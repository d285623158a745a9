import {
  beginText,
  endMarkedContent,
  endText,
  PDFArray,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  PDFPage,
  popGraphicsState,
  pushGraphicsState,
  setFillingColor,
  setFontAndSize,
  setTextMatrix,
  setTextRise,
  type Color,
  type PDFContext,
  type PDFRef,
} from 'pdf-lib';
import { loadFace, type FontWeight } from './font-library.js';
import { FontSubset } from './font-subset.js';
import { shapeText, type GlyphRun } from './text-shaping.js';

export interface TextStyle {
  weight: FontWeight;
  size: number;
  color: Color;
}

/** Where text goes: a page, or any content stream with its own font resources (a form XObject). */
export interface TextTarget {
  /** The name under which the target's resources know this font (added on first use). */
  fontName(font: PDFRef, postscriptName: string): PDFName;
  pushOperators(...operators: PDFOperator[]): void;
}

/** A target's text object as it is built: operators so far and the state they leave (set only when it changes). */
interface TargetText {
  operators: PDFOperator[];
  names: Map<FontSubset, PDFName>;
  color?: Color;
  font?: PDFName;
  size?: number;
}

interface PendingText {
  target: TextTarget;
  runs: GlyphRun[];
  x: number;
  y: number;
  style: TextStyle;
}

const pageTargets = new WeakMap<PDFPage, TextTarget>();

function targetOf(target: PDFPage | TextTarget): TextTarget {
  if (!(target instanceof PDFPage)) return target;
  let adapter = pageTargets.get(target);
  if (!adapter) {
    const page = target;
    pageTargets.set(
      target,
      (adapter = { fontName: (font, name) => page.node.newFontDictionary(name, font), pushOperators: (...operators) => page.pushOperators(...operators) }),
    );
  }
  return adapter;
}

/**
 * Unicode text in any script: each line is shaped (text-shaping.ts: bidi order, HarfBuzz for the
 * scripts that need it, a glyph per character for the rest) into runs of the fallback chain's
 * families, drawn as glyph ids of subset fonts (font-subset.ts) whose ToUnicode maps, with an
 * `/ActualText` span where glyphs and characters do not match one to one, extract as the text in
 * logical order. Measuring needs only the parsed fonts; drawing is collected and done by
 * `flush()`, which embeds just the families and weights the document used (so a Latin-only
 * document carries no CJK font at all). Text is drawn above anything else on its target.
 */
export class Typeface {
  private readonly pending: PendingText[] = [];
  private readonly fonts = new Map<string, FontSubset>();

  constructor(private readonly context: PDFContext) {}

  /** Width of `text` in points, as drawn (shaping included). Widths of pieces add up only for text that needs no shaping. */
  width(text: string, style: TextStyle): number {
    return shapeText(text, style.weight).width * style.size;
  }

  /** Queues `text` with its baseline at `y`, starting at `x` (or ending at `x` when `alignRight`). */
  draw(target: PDFPage | TextTarget, text: string, at: { x: number; y: number; alignRight?: boolean }, style: TextStyle): void {
    if (!text) return;
    const shaped = shapeText(text, style.weight);
    const x = at.alignRight ? at.x - shaped.width * style.size : at.x;
    this.pending.push({ target: targetOf(target), runs: shaped.runs, x, y: at.y, style });
  }

  /**
   * Draws the queued text and embeds the fonts it needs: one text object per target, each font
   * named once in its resources. (pdf-lib's drawText adds a resource entry per call, and its cost
   * grows with every entry already on the page.)
   */
  async flush(): Promise<void> {
    const targets = new Map<TextTarget, TargetText>();
    for (const { target, runs, x, y, style } of this.pending.splice(0)) {
      let text = targets.get(target);
      if (!text) targets.set(target, (text = { operators: [pushGraphicsState(), beginText()], names: new Map() }));
      if (text.color !== style.color) {
        text.operators.push(setFillingColor(style.color));
        text.color = style.color;
      }
      let left = x;
      for (const run of runs) {
        const font = this.fontFor(run.face, style.weight);
        let name = text.names.get(font);
        if (!name) text.names.set(font, (name = target.fontName(font.ref, font.postscriptName)));
        if (text.font !== name || text.size !== style.size) {
          text.operators.push(setFontAndSize(name, style.size));
          [text.font, text.size] = [name, style.size];
        }
        if (run.actualText !== undefined) text.operators.push(actualTextSpan(run.actualText));
        text.operators.push(...this.glyphOperators(font, run, left, y, style.size));
        if (run.actualText !== undefined) text.operators.push(endMarkedContent());
        left += run.width * style.size;
      }
    }
    for (const [target, { operators }] of targets) target.pushOperators(...operators, endText(), popGraphicsState());
    for (const font of this.fonts.values()) await font.embed();
  }

  /**
   * Puts the glyphs of `text` in the subsets without drawing them: text drawn with varying
   * characters (a uuid's hex digits) then always uses the same glyph set, and its subset program
   * is built once per thread (font-subset.ts).
   */
  include(text: string, weight: FontWeight): void {
    for (const run of shapeText(text, weight).runs) {
      const font = this.fontFor(run.face, weight);
      for (const glyph of run.glyphs) font.code(glyph.id, glyph.text);
    }
  }

  private fontFor(face: number, weight: FontWeight): FontSubset {
    const key = `${face}:${weight}`;
    let font = this.fonts.get(key);
    if (!font) this.fonts.set(key, (font = new FontSubset(this.context, loadFace(face, weight))));
    return font;
  }

  /**
   * Shows a run's glyphs from (x, y) in one TJ: a number wherever the shaped position differs from
   * the glyph's own width (kerning, marks placed over their base); a glyph raised or lowered (a mark
   * above or below) takes a text rise, which splits the TJ but keeps one line of text for readers.
   */
  private glyphOperators(font: FontSubset, run: GlyphRun, x: number, y: number, size: number): PDFOperator[] {
    const parsed = font.loaded.font;
    const perMille = 1000 / parsed.unitsPerEm;
    const operators: PDFOperator[] = [setTextMatrix(1, 0, 0, 1, x, y)];
    let shown: Array<PDFHexString | PDFNumber> = [];
    let hex = '';
    let rise = 0;
    const move = (amount: number) => {
      if (Math.abs(amount) < 0.001) return;
      if (hex) shown.push(PDFHexString.of(hex));
      shown.push(PDFNumber.of(Math.round(amount * 1000) / 1000));
      hex = '';
    };
    const finish = () => {
      if (hex) shown.push(PDFHexString.of(hex));
      if (shown.length > 0) operators.push(PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [this.context.obj(shown) as PDFArray]));
      shown = [];
      hex = '';
    };
    for (const glyph of run.glyphs) {
      const glyphRise = (glyph.dy * size) / parsed.unitsPerEm;
      if (glyphRise !== rise) {
        finish();
        operators.push(setTextRise(glyphRise));
        rise = glyphRise;
      }
      // TJ numbers move left, in thousandths of the font size.
      move(-glyph.dx * perMille);
      hex += font.code(glyph.id, glyph.text);
      move((parsed.getGlyph(glyph.id).advanceWidth - glyph.advance + glyph.dx) * perMille);
    }
    finish();
    if (rise !== 0) operators.push(setTextRise(0));
    return operators;
  }
}

/** `/Span << /ActualText (…) >> BDC`: what the enclosed glyphs say, for extraction and copying (ISO 32000-1 §14.9.4). */
function actualTextSpan(text: string): PDFOperator {
  return PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, [PDFName.of('Span'), `<< /ActualText ${PDFHexString.fromText(text).toString()} >>`]);
}
