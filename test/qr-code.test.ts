import { PDFDocument, rgb } from 'pdf-lib';
import { qrModules } from '../src/documents/qr-code.js';
import { qrOnPage } from './support/qr.js';

/** Draws the modules as filled squares, the simplest faithful rendering. */
async function pdfWithQr(text: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([300, 300]);
  const modules = qrModules(text);
  const cell = 200 / modules.size;
  for (let row = 0; row < modules.size; row += 1) {
    for (let column = 0; column < modules.size; column += 1) {
      if (modules.isDark(row, column)) page.drawRectangle({ x: 50 + column * cell, y: 250 - (row + 1) * cell, width: cell, height: cell, color: rgb(0, 0, 0) });
    }
  }
  return document.save();
}

describe('QR codes', () => {
  it('encodes a verification URL that an independent decoder reads back from the rendered page', async () => {
    const url = 'https://credentials.example.edu/verify/0b5e6a1c-4f7e-4a43-9a57-3c8a2d1e9f10';
    expect(await qrOnPage(await pdfWithQr(url))).toBe(url);
  });

  it('finds nothing on a page without one', async () => {
    const document = await PDFDocument.create();
    document.addPage([300, 300]);
    expect(await qrOnPage(await document.save())).toBeNull();
  });
});
