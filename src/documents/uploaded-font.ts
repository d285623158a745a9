import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import { parseFont } from './font-library.js';

/** OS/2 `fsType` bit 1: "Restricted License embedding" — the font must not be embedded at all. */
const RESTRICTED_EMBEDDING = 0x0002;
/** Glyphs a check embeds: enough to exercise the subset writer on real outlines. */
const SAMPLE = 'AaBbGgQq0123 ÀéÖ';

/**
 * Checks an uploaded TTF/OTF file before a template may draw with it (on a document worker: the
 * file is untrusted and parsing it is bounded by the worker's time and heap): it parses, maps
 * characters to glyphs, allows embedding, and a subset of it can be written into a PDF.
 * Returns the family name; DocumentError says what is wrong.
 */
export async function checkUploadedFont(bytes: Uint8Array): Promise<{ family: string; glyphs: number }> {
  let font: ReturnType<typeof fontkit.create>;
  try {
    font = fontkit.create(bytes);
  } catch (error) {
    throw new DocumentError('FONT_UNREADABLE', 'The font cannot be read as a TrueType or OpenType file.', { cause: error });
  }
  if (!('numGlyphs' in font) || font.numGlyphs < 2 || font.characterSet.length === 0) {
    throw new DocumentError('FONT_UNREADABLE', 'The font maps no characters to glyphs.');
  }
  const os2 = (font as unknown as { 'OS/2'?: { fsType?: number } })['OS/2'];
  if (os2?.fsType !== undefined && (os2.fsType & 0x000f) === RESTRICTED_EMBEDDING) {
    throw new DocumentError('FONT_UNREADABLE', "The font's licence forbids embedding it in documents (OS/2 fsType: restricted).");
  }
  try {
    const document = await PDFDocument.create();
    document.registerFontkit(fontkit);
    const loaded = parseFont(bytes);
    const embedded = await document.embedFont(loaded.bytes, { subset: true });
    document.addPage().drawText(SAMPLE, { font: embedded, size: 12 });
    await document.save();
  } catch (error) {
    throw new DocumentError('FONT_UNREADABLE', 'The font cannot be embedded in a PDF.', { cause: error });
  }
  return { family: font.familyName ?? '', glyphs: font.numGlyphs };
}
