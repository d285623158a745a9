/** The content types the service accepts, recognised by their first bytes, never by the client's claim. */
export interface FileType {
  mimeType: string;
  extension: string;
}

export const PDF: FileType = { mimeType: 'application/pdf', extension: 'pdf' };
export const PNG: FileType = { mimeType: 'image/png', extension: 'png' };
export const SVG: FileType = { mimeType: 'image/svg+xml', extension: 'svg' };
/** Photographs and scanned designs a template draws (docs/templates.md). */
export const JPEG: FileType = { mimeType: 'image/jpeg', extension: 'jpg' };
/** Fonts a template's text may be set in: TrueType (also `true` Apple files) and OpenType with CFF outlines. */
export const TTF: FileType = { mimeType: 'font/ttf', extension: 'ttf' };
export const OTF: FileType = { mimeType: 'font/otf', extension: 'otf' };

/** Every type an upload may be, in the order refusals list them. */
export const ACCEPTED_TYPES: readonly FileType[] = [PDF, PNG, SVG, JPEG, TTF, OTF];

/** How much of the start of a file detection needs: the SVG prologue is looked for in the first KiB. */
export const SNIFF_BYTES = 1024;

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const TRUETYPE_MAGICS = [Buffer.from([0x00, 0x01, 0x00, 0x00]), Buffer.from('true', 'latin1')];
const OPENTYPE_MAGIC = Buffer.from('OTTO', 'latin1');

/** Where the root element of an XML document starts, past whitespace, declaration, PIs, comments and doctype; -1 when the text ends first. */
export function skipProlog(text: string): number {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    if (text.startsWith('<?', at)) {
      const end = text.indexOf('?>', at + 2);
      if (end < 0) return -1;
      at = end + 2;
    } else if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at + 4);
      if (end < 0) return -1;
      at = end + 3;
    } else if (/^<!DOCTYPE/i.test(text.slice(at, at + 9))) {
      const end = doctypeEnd(text, at + 9);
      if (end < 0) return -1;
      at = end + 1;
    } else {
      return at;
    }
  }
}

/** The `>` closing a doctype, past an internal subset `[...]` if it has one. */
function doctypeEnd(text: string, from: number): number {
  let inSubset = false;
  for (let at = from; at < text.length; at++) {
    const char = text[at];
    if (char === '[') inSubset = true;
    else if (char === ']') inSubset = false;
    else if (char === '>' && !inSubset) return at;
  }
  return -1;
}

function isSvg(head: Buffer): boolean {
  let text = head.subarray(0, SNIFF_BYTES).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const root = skipProlog(text);
  return root >= 0 && /^<svg[\s>/]/.test(text.slice(root, root + 5));
}

/** The accepted type these first bytes start, or undefined. `head` holds at least SNIFF_BYTES unless the file is shorter. */
export function detectFileType(head: Buffer): FileType | undefined {
  if (head.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return PDF;
  if (head.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC)) return PNG;
  if (head.subarray(0, JPEG_MAGIC.length).equals(JPEG_MAGIC)) return JPEG;
  if (TRUETYPE_MAGICS.some((magic) => head.subarray(0, 4).equals(magic))) return TTF;
  if (head.subarray(0, 4).equals(OPENTYPE_MAGIC)) return OTF;
  if (isSvg(head)) return SVG;
  return undefined;
}
