import QRCode from 'qrcode';

/** The dark/light modules of a QR code, row by row; drawn by whichever document needs one. */
export interface QrModules {
  size: number;
  isDark(row: number, column: number): boolean;
}

/** Medium error correction: survives a smudged print while keeping a verification URL at 33×33 modules or less. */
export function qrModules(text: string): QrModules {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, isDark: (row, column) => modules.get(row, column) === 1 };
}
