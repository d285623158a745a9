import QRCode from 'qrcode';

/** The dark/light modules of a QR code, row by row; drawn by whichever document needs one. */
export interface QrModules {
  size: number;
  isDark(row: number, column: number): boolean;
}

/**
 * Medium error correction: survives a smudged print while keeping a verification URL at 33×33 modules or less.
 * One byte-mode segment: a URL gains nothing from qrcode's mixed-mode search, which costs four times the rest.
 */
export function qrModules(text: string): QrModules {
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
  return { size: modules.size, isDark: (row, column) => modules.get(row, column) === 1 };
}
