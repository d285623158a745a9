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
  if (last?.text === text) return last.modules;
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
  const result: QrModules = { size: modules.size, isDark: (row, column) => modules.get(row, column) === 1 };
  last = { text, modules: result };
  return result;
}

// An issuance draws its verification URL twice (the certificate's stamp, the transcript); choosing the
// mask pattern is most of a code's cost, so the thread keeps the last one.
let last: { text: string; modules: QrModules } | undefined;
