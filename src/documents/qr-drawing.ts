import { drawObject, popGraphicsState, pushGraphicsState, concatTransformationMatrix, type PDFDocument, type PDFPage, type RGB } from 'pdf-lib';
import type { QrModules } from './qr-code.js';

/** Modules of light quiet zone a scanner wants around the code; the caller keeps it clear. */
export const QR_QUIET_MODULES = 4;

const decimal = (value: number) => Number(value.toFixed(4)).toString();

/**
 * Draws QR modules as a square of `size` points whose top-left corner is at (x, top). The modules
 * become one form XObject in module units, a rectangle per horizontal run of dark modules, placed
 * by a single matrix: a few hundred rectangles cost one stream instead of a few hundred drawing calls.
 */
export function drawQrCode(document: PDFDocument, page: PDFPage, modules: QrModules, at: { x: number; top: number; size: number }, color: RGB): void {
  const rectangles: string[] = [];
  for (let row = 0; row < modules.size; row++) {
    let column = 0;
    while (column < modules.size) {
      if (!modules.isDark(row, column)) {
        column++;
        continue;
      }
      const start = column;
      while (column < modules.size && modules.isDark(row, column)) column++;
      rectangles.push(`${start} ${modules.size - row - 1} ${column - start} 1 re`);
    }
  }
  const fill = [color.red, color.green, color.blue].map(decimal).join(' ');
  const content = `${fill} rg\n${rectangles.join('\n')}\nf\n`;
  const form = document.context.flateStream(content, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, modules.size, modules.size] });
  const name = page.node.newXObject('QR', document.context.register(form));
  const unit = at.size / modules.size;
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(unit, 0, 0, unit, at.x, at.top - at.size), drawObject(name), popGraphicsState());
}
