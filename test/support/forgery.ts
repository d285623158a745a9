import { PDFDict, PDFDocument, PDFName, PDFRef } from 'pdf-lib';

/**
 * Appends an incremental update that replaces the first page's content with `text`, the way an
 * editor saves changes to a signed file: every original byte stays, a new xref section follows.
 */
export async function withReplacedText(signed: Buffer, text: string): Promise<Buffer> {
  const document = await PDFDocument.load(signed, { updateMetadata: false });
  const page = document.getPage(0);
  const font = page.node.Resources()!.lookup(PDFName.of('Font'), PDFDict).keys()[0]!;
  // pdf-lib does not count the object and xref streams it unpacked: stay clear of their numbers.
  const contentNumber = document.context.largestObjectNumber + 100;
  const content = `BT ${font.asString()} 28 Tf 60 300 Td (${text}) Tj ET`;
  page.node.set(PDFName.of('Contents'), PDFRef.of(contentNumber));
  const objects: [number, string][] = [
    [contentNumber, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`],
    [page.ref.objectNumber, page.node.toString()],
  ];
  let update = '\n';
  const offsets = new Map<number, number>();
  for (const [number, body] of objects) {
    offsets.set(number, signed.length + update.length);
    update += `${number} 0 obj\n${body}\nendobj\n`;
  }
  const xrefAt = signed.length + update.length;
  update += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [number, offset] of [...offsets].sort((a, b) => a[0] - b[0])) update += `${number} 1\n${String(offset).padStart(10, '0')} 00000 n \n`;
  const root = String(document.context.trailerInfo.Root);
  update += `trailer\n<< /Size ${contentNumber + 1} /Root ${root} /Prev ${previousXref(signed)} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([signed, Buffer.from(update, 'latin1')]);
}

function previousXref(pdf: Buffer): number {
  const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.subarray(-64).toString('latin1'));
  if (!match) throw new Error('no startxref at the end of the file');
  return Number(match[1]);
}

/** The /ByteRange numbers of the file's (first) signature and where they are written. */
export function byteRangeOf(pdf: Buffer): { at: number; text: string; range: number[] } {
  const at = pdf.indexOf('/ByteRange');
  const text = /\/ByteRange\s*\[[^\]]*\]/.exec(pdf.subarray(at, at + 80).toString('latin1'))![0];
  return { at, text, range: text.match(/\d+/g)!.map(Number) };
}
