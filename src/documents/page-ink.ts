import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFPage } from 'pdf-lib';

/** A rectangle in the page's user space. */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
// Bounds on what is read of an untrusted page: past them the page counts as unreadable.
/** An image or form's own space: the unit square its matrix maps onto the page. */
const UNIT_SQUARE: Array<[number, number]> = [
  [0, 0],
  [1, 1],
  [0, 1],
  [1, 0],
];
const MAX_CONTENT_BYTES = 8 << 20;
const MAX_TOKENS = 2_000_000;
/** More painted boxes than this and the search for a free spot would cost too much: the page counts as full. */
const MAX_BOXES = 20_000;
/** Anything painted over this share of the page is a background (a colour, a full-page image), not content to avoid. */
const BACKGROUND_SHARE = 0.4;

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

function boxOf(points: Array<[number, number]>, m: Matrix, grow = 0): Box {
  const xs = points.map(([x, y]) => m[0] * x + m[2] * y + m[4]);
  const ys = points.map(([x, y]) => m[1] * x + m[3] * y + m[5]);
  return { x1: Math.min(...xs) - grow, y1: Math.min(...ys) - grow, x2: Math.max(...xs) + grow, y2: Math.max(...ys) + grow };
}

/**
 * Where a page paints something: boxes around its text, stroked lines (each segment on its own, so a
 * frame around the page leaves its inside free), filled shapes, images and form XObjects, read from
 * its content streams. Text widths are estimated from byte counts (half an em per byte), on the
 * generous side. Undefined when the content cannot be read within bounds (a filter other than
 * Flate, an oversized stream): the caller then keeps its default.
 */
export function paintedBoxes(page: PDFPage): Box[] | undefined {
  const content = pageContent(page);
  if (content === undefined) return undefined;
  const crop = page.getCropBox();
  const pageArea = crop.width * crop.height;
  const boxes: Box[] = [];
  const add = (box: Box) => {
    if ((box.x2 - box.x1) * (box.y2 - box.y1) < BACKGROUND_SHARE * pageArea) boxes.push(box);
  };
  const xObjects = page.node.Resources()?.lookup(PDFName.of('XObject'));

  const stack: Array<{ ctm: Matrix; lineWidth: number }> = [];
  let ctm = IDENTITY;
  let lineWidth = 1;
  let textMatrix = IDENTITY;
  let lineMatrix = IDENTITY;
  let fontSize = 12;
  let leading = 0;
  let path: Array<Array<[number, number]>> = [];
  const operands: Array<number | string | Array<number | string>> = [];
  let array: Array<number | string> | undefined;
  const number = (index: number) => Number(operands.at(index)) || 0;
  const showText = (width: number) => {
    const em = Math.abs(fontSize);
    add(
      boxOf(
        [
          [0, -0.25 * em],
          [width, em],
        ],
        multiply(textMatrix, ctm),
      ),
    );
    textMatrix = multiply([1, 0, 0, 1, width, 0], textMatrix);
  };
  const stringWidth = (value: string) => value.length * 0.5 * Math.abs(fontSize);
  const moveLine = (tx: number, ty: number) => {
    lineMatrix = multiply([1, 0, 0, 1, tx, ty], lineMatrix);
    textMatrix = lineMatrix;
  };

  let count = 0;
  for (const token of tokens(content)) {
    if (++count > MAX_TOKENS || boxes.length > MAX_BOXES) return undefined;
    if (token.kind === 'open') array = [];
    else if (token.kind === 'close') {
      if (array) operands.push(array);
      array = undefined;
    } else if (token.kind === 'operand') (array ?? operands).push(token.value);
    else {
      const op = token.value;
      switch (op) {
        case 'q':
          stack.push({ ctm, lineWidth });
          break;
        case 'Q':
          ({ ctm, lineWidth } = stack.pop() ?? { ctm: IDENTITY, lineWidth: 1 });
          break;
        case 'cm':
          ctm = multiply([number(-6), number(-5), number(-4), number(-3), number(-2), number(-1)], ctm);
          break;
        case 'w':
          lineWidth = number(-1);
          break;
        case 'm':
          path.push([[number(-2), number(-1)]]);
          break;
        case 'l':
          (path.at(-1) ?? (path[0] = [])).push([number(-2), number(-1)]);
          break;
        case 'c':
          path.at(-1)?.push([number(-6), number(-5)], [number(-4), number(-3)], [number(-2), number(-1)]);
          break;
        case 'v':
        case 'y':
          path.at(-1)?.push([number(-4), number(-3)], [number(-2), number(-1)]);
          break;
        case 're': {
          const [x, y, w, h] = [number(-4), number(-3), number(-2), number(-1)];
          path.push([
            [x, y],
            [x + w, y],
            [x + w, y + h],
            [x, y + h],
            [x, y],
          ]);
          break;
        }
        case 'S':
        case 's':
        case 'f':
        case 'F':
        case 'f*':
        case 'B':
        case 'B*':
        case 'b':
        case 'b*': {
          // Strokes segment by segment (a frame leaves its inside free); fills as their whole extent.
          if (!'fF'.includes(op[0]!)) {
            const grow = (lineWidth * Math.hypot(ctm[0], ctm[1])) / 2;
            for (const sub of path) for (let i = 1; i < sub.length; i++) add(boxOf([sub[i - 1]!, sub[i]!], ctm, grow));
          }
          const points = path.flat();
          if (!'Ss'.includes(op[0]!) && points.length > 0) add(boxOf(points, ctm));
          path = [];
          break;
        }
        case 'h': {
          const sub = path.at(-1);
          if (sub && sub.length > 0) sub.push(sub[0]!);
          break;
        }
        case 'n':
          path = [];
          break;
        case 'BT':
          textMatrix = lineMatrix = IDENTITY;
          break;
        case 'Tf':
          fontSize = number(-1);
          break;
        case 'TL':
          leading = number(-1);
          break;
        case 'Td':
          moveLine(number(-2), number(-1));
          break;
        case 'TD':
          leading = -number(-1);
          moveLine(number(-2), number(-1));
          break;
        case 'Tm':
          textMatrix = lineMatrix = [number(-6), number(-5), number(-4), number(-3), number(-2), number(-1)];
          break;
        case 'T*':
          moveLine(0, -leading);
          break;
        case "'":
        case '"':
          moveLine(0, -leading);
          showText(stringWidth(String(operands.at(-1) ?? '')));
          break;
        case 'Tj':
          showText(stringWidth(String(operands.at(-1) ?? '')));
          break;
        case 'TJ': {
          const parts = operands.at(-1);
          const items = Array.isArray(parts) ? parts : [];
          showText(items.reduce<number>((width, item) => width + (typeof item === 'string' ? stringWidth(item) : (-item / 1000) * Math.abs(fontSize)), 0));
          break;
        }
        case 'Do': {
          const name = String(operands.at(-1) ?? '');
          const object = xObjects instanceof PDFDict ? xObjects.lookup(PDFName.of(name.slice(1))) : undefined;
          const dict = object instanceof PDFRawStream ? object.dict : undefined;
          const bbox = dict?.lookup(PDFName.of('BBox'));
          if (bbox instanceof PDFArray && bbox.size() === 4) {
            const [x1, y1, x2, y2] = bbox.asArray().map((value) => (value instanceof PDFNumber ? value.asNumber() : 0)) as [number, number, number, number];
            const matrix = dict!.lookup(PDFName.of('Matrix'));
            const form =
              matrix instanceof PDFArray && matrix.size() === 6
                ? (matrix.asArray().map((value) => (value instanceof PDFNumber ? value.asNumber() : 0)) as Matrix)
                : IDENTITY;
            add(
              boxOf(
                [
                  [x1, y1],
                  [x2, y2],
                  [x1, y2],
                  [x2, y1],
                ],
                multiply(form, ctm),
              ),
            );
          } else add(boxOf(UNIT_SQUARE, ctm));
          break;
        }
        case 'BI':
          add(boxOf(UNIT_SQUARE, ctm));
          break;
      }
      operands.length = 0;
    }
  }
  return boxes;
}

/** The page's content streams, decoded and joined; undefined past the bounds or for filters other than Flate. */
function pageContent(page: PDFPage): string | undefined {
  const contents = page.node.get(PDFName.of('Contents'));
  const context = page.doc.context;
  const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
  const streams = resolved instanceof PDFArray ? resolved.asArray().map((item) => (item instanceof PDFRef ? context.lookup(item) : item)) : [resolved];
  const parts: Buffer[] = [];
  let total = 0;
  for (const stream of streams) {
    if (stream === undefined) continue;
    if (!(stream instanceof PDFRawStream)) return undefined;
    const filter = stream.dict.lookup(PDFName.of('Filter'));
    const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
    if (filters.length > 1 || (filters.length === 1 && filters[0] !== PDFName.of('FlateDecode'))) return undefined;
    let bytes: Buffer;
    try {
      bytes = filters.length === 1 ? inflateSync(stream.contents, { maxOutputLength: MAX_CONTENT_BYTES - total }) : Buffer.from(stream.contents);
    } catch {
      return undefined;
    }
    total += bytes.length + 1;
    if (total > MAX_CONTENT_BYTES) return undefined;
    parts.push(bytes, Buffer.from('\n'));
  }
  return Buffer.concat(parts).toString('latin1');
}

type Token = { kind: 'operand'; value: number | string } | { kind: 'operator'; value: string } | { kind: 'open' } | { kind: 'close' };

const WHITESPACE = /[\0\t\n\f\r ]/;
const DELIMITER = /[\0\t\n\f\r ()<>[\]{}/%]/;

/** PDF content stream tokens: numbers, names, strings (their bytes as latin1), arrays, operators; dictionaries and inline image data skipped. */
function* tokens(content: string): Generator<Token> {
  let i = 0;
  const length = content.length;
  while (i < length) {
    const c = content[i]!;
    if (WHITESPACE.test(c)) i++;
    else if (c === '%') {
      while (i < length && content[i] !== '\n' && content[i] !== '\r') i++;
    } else if (c === '[') {
      i++;
      yield { kind: 'open' };
    } else if (c === ']') {
      i++;
      yield { kind: 'close' };
    } else if (c === '(') {
      let depth = 1;
      let value = '';
      i++;
      while (i < length && depth > 0) {
        const d = content[i]!;
        if (d === '\\') {
          i += 2;
          value += '?';
          continue;
        }
        if (d === '(') depth++;
        else if (d === ')' && --depth === 0) break;
        value += d;
        i++;
      }
      i++;
      yield { kind: 'operand', value };
    } else if (c === '<' && content[i + 1] === '<') {
      // A dictionary operand (marked content properties): skipped whole.
      let depth = 0;
      while (i < length) {
        if (content.startsWith('<<', i)) {
          depth++;
          i += 2;
        } else if (content.startsWith('>>', i)) {
          i += 2;
          if (--depth === 0) break;
        } else i++;
      }
      yield { kind: 'operand', value: '' };
    } else if (c === '<') {
      const end = content.indexOf('>', i);
      const hex = content.slice(i + 1, end < 0 ? length : end).replace(/\s/g, '');
      i = end < 0 ? length : end + 1;
      yield { kind: 'operand', value: 'x'.repeat(Math.ceil(hex.length / 2)) };
    } else if (c === '/') {
      let end = i + 1;
      while (end < length && !DELIMITER.test(content[end]!)) end++;
      yield { kind: 'operand', value: content.slice(i, end) };
      i = end;
    } else {
      let end = i + 1;
      while (end < length && !DELIMITER.test(content[end]!)) end++;
      const word = content.slice(i, end);
      i = end;
      const value = Number(word);
      if (word !== '' && !Number.isNaN(value)) yield { kind: 'operand', value };
      else {
        yield { kind: 'operator', value: word };
        if (word === 'ID') {
          // Inline image data runs to the first "EI" standing alone.
          const end = content.slice(i).search(/\sEI(?=[\s]|$)/);
          i = end < 0 ? length : i + end + 3;
        }
      }
    }
  }
}

/**
 * The spot for a box of `size` on the crop box, `margin` from its edges and clear of every painted
 * box by `clearance`: the lowest free row first (a stamp reads as a footer), the right-most spot in
 * it. Undefined when there is none.
 */
export function freeSpot(
  boxes: Box[],
  crop: { x: number; y: number; width: number; height: number },
  size: { width: number; height: number },
  margin: number,
  clearance = 4,
): { x: number; y: number } | undefined {
  const STEP = 6;
  for (let y = margin; y + size.height <= crop.height - margin; y += STEP) {
    const band = boxes.filter((box) => box.y2 > crop.y + y - clearance && box.y1 < crop.y + y + size.height + clearance);
    for (let x = crop.width - margin - size.width; x >= margin; x -= STEP) {
      const [left, right] = [crop.x + x - clearance, crop.x + x + size.width + clearance];
      const blocking = band.find((box) => box.x2 > left && box.x1 < right);
      if (!blocking) return { x, y };
      // Jump past the blocking box to the left.
      x = Math.min(x - STEP, blocking.x1 - crop.x - clearance - size.width) + STEP;
    }
  }
  return undefined;
}
