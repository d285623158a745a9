import {
  beginText,
  endText,
  popGraphicsState,
  pushGraphicsState,
  setFillingColor,
  setFontAndSize,
  setTextMatrix,
  showText,
  type Color,
  type PDFDocument,
  type PDFFont,
  type PDFName,
  type PDFOperator,
  type PDFPage,
} from 'pdf-lib';
import { cachingFontkit, faceFor, loadFace, type FontWeight } from './font-library.js';

export interface TextStyle {
  weight: FontWeight;
  size: number;
  color: Color;
}

/** A stretch of text that one family of the fallback chain draws. */
interface TextRun {
  face: number;
  text: string;
}

/** A page's text object as it is built: operators so far and the state they leave (set only when it changes). */
interface PageText {
  operators: PDFOperator[];
  names: Map<PDFFont, PDFName>;
  color?: Color;
  font?: PDFName;
  size?: number;
}

interface PendingText {
  page: PDFPage;
  runs: TextRun[];
  x: number;
  y: number;
  style: TextStyle;
}

/** Combining marks and format characters stay with the run they follow instead of starting a new one. */
const FOLLOWS_RUN = /[\p{M}\p{Cf}]/u;

/**
 * Unicode text on pages: every run of characters is drawn with the first family whose cmap has its
 * glyphs (font-library.ts), embedded as a subset of the glyphs used. Measuring needs only the parsed
 * fonts; drawing is collected and done by `flush()`, which embeds just the families and weights the
 * document used (so a Latin-only document carries no CJK font at all). Text is drawn above anything
 * else on the page.
 */
export class Typeface {
  private readonly pending: PendingText[] = [];
  private readonly runCache = new Map<string, TextRun[]>();

  constructor(private readonly document: PDFDocument) {
    document.registerFontkit(cachingFontkit);
  }

  /**
   * Width of `text` in points: what the subset fonts will advance when the text is drawn. Without
   * shaping it is the sum of the characters' advances, so callers may add up the widths of pieces.
   */
  width(text: string, style: TextStyle): number {
    let width = 0;
    for (const run of this.runs(text)) {
      const face = loadFace(run.face, style.weight);
      let advance = 0;
      for (const character of run.text) advance += face.advance(character.codePointAt(0)!);
      width += (advance * style.size) / face.font.unitsPerEm;
    }
    return width;
  }

  /** Queues `text` with its baseline at `y`, starting at `x` (or ending at `x` when `alignRight`). */
  draw(page: PDFPage, text: string, at: { x: number; y: number; alignRight?: boolean }, style: TextStyle): void {
    if (!text) return;
    const x = at.alignRight ? at.x - this.width(text, style) : at.x;
    this.pending.push({ page, runs: this.runs(text), x, y: at.y, style });
  }

  /**
   * Embeds the fonts the queued text needs and draws it: one text object per page, each font named
   * once in the page's resources. (pdf-lib's drawText adds a resource entry per call, and its cost
   * grows with every entry already on the page.)
   */
  async flush(): Promise<void> {
    const fonts = new Map<string, PDFFont>();
    for (const { runs, style } of this.pending) {
      for (const { face } of runs) {
        const key = `${face}:${style.weight}`;
        if (!fonts.has(key)) fonts.set(key, await this.document.embedFont(loadFace(face, style.weight).bytes, { subset: true }));
      }
    }
    const pages = new Map<PDFPage, PageText>();
    for (const { page, runs, x, y, style } of this.pending.splice(0)) {
      let target = pages.get(page);
      if (!target) pages.set(page, (target = { operators: [pushGraphicsState(), beginText()], names: new Map() }));
      if (target.color !== style.color) {
        target.operators.push(setFillingColor(style.color));
        target.color = style.color;
      }
      let left = x;
      for (const run of runs) {
        const font = fonts.get(`${run.face}:${style.weight}`)!;
        let name = target.names.get(font);
        if (!name) target.names.set(font, (name = page.node.newFontDictionary(font.name, font.ref)));
        if (target.font !== name || target.size !== style.size) {
          target.operators.push(setFontAndSize(name, style.size));
          [target.font, target.size] = [name, style.size];
        }
        target.operators.push(setTextMatrix(1, 0, 0, 1, left, y), showText(font.encodeText(run.text)));
        left += this.width(run.text, style);
      }
    }
    for (const [page, { operators }] of pages) page.pushOperators(...operators, endText(), popGraphicsState());
  }

  private runs(text: string): TextRun[] {
    let runs = this.runCache.get(text);
    if (runs) return runs;
    runs = [];
    for (const character of text) {
      const current = runs.at(-1);
      const face = current && FOLLOWS_RUN.test(character) ? current.face : (faceFor(character.codePointAt(0)!) ?? 0);
      if (current?.face === face) current.text += character;
      else runs.push({ face, text: character });
    }
    this.runCache.set(text, runs);
    return runs;
  }
}
