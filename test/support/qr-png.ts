import QRCode from 'qrcode';

/**
 * A QR code of `text` as a PNG (RGBA, qrcode's renderer): a real image for badge uploads. Rows are
 * written unfiltered: pngjs's default tries five filters on every row in JavaScript, which under Jest's
 * module registry costs about a second of CPU an image.
 */
export const qrPng = (text: string): Promise<Buffer> => QRCode.toBuffer(text, { type: 'png', rendererOpts: { filterType: 0 } } as QRCode.QRCodeToBufferOptions);
