import { randomUUID } from 'node:crypto';
/** A real one-page PDF, as an institution would upload it, showing `label`; different bytes at every call. */
export async function diplomaPdf(label: string): Promise<Uint8Array> {
  // pdf-lib is loaded by the first PDF made, not with the module: factories.ts brings this file into most suites.
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const document = await PDFDocument.create();
  const page = document.addPage([842, 595]);
  page.drawText(label, { x: 60, y: 300, size: 24, font: await document.embedFont(StandardFonts.Helvetica) });
  // Unique bytes every call: uploads are deduplicated by content, and two diplomas of one label made in the
  // same second (pdf-lib dates to the second) were one file, which a second certificate cannot take.
  document.setKeywords([randomUUID()]);
  return document.save();
}

/** Every page's text, joined. */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  const { pageTexts } = await import('../fixtures/documents.js');
  return (await pageTexts(pdf)).join('\n');
}
