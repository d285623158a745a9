import jsQRModule from 'jsqr';
import { PDFDocument, rgb } from 'pdf-lib';
import { PNG } from 'pngjs';
import { qrModules, qrPngDataUrl } from '../src/documents/qr-code.js';
import { qrOnPage } from './support/qr.js';

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as Decode;

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

  it('encodes a wallet offer as a PNG data URL that an independent decoder reads back', () => {
    const offer = `openid-credential-offer://?credential_offer_uri=${encodeURIComponent('https://credentials.example.edu/api/v1/wallets/offers/3c8a2d1e')}`;
    const dataUrl = qrPngDataUrl(offer, 200, 2);
    expect(dataUrl).toMatch(/^data:image\/png;base64,/);
    const image = PNG.sync.read(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
    expect([image.width, image.height]).toEqual([200, 200]);
    expect(jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data).toBe(offer);
  });

  it('finds nothing on a page without one', async () => {
    const document = await PDFDocument.create();
    document.addPage([300, 300]);
    expect(await qrOnPage(await document.save())).toBeNull();
  });
});
