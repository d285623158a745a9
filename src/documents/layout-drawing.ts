/**
 * What a template's layout draws, as plain cloneable data for a document worker: positions in
 * millimetres from the page's top-left corner, font sizes and thicknesses in points, placeholders
 * already filled, the files it draws as bytes (keyed by file uuid). Validated where it was read
 * (src/templates/template-layout.ts); the renderer (layout-renderer.ts) trusts its numbers but not
 * the bytes of the files.
 */

export type Color = string;

export interface LayoutPage {
  width: number;
  height: number;
}

export type LayoutBackground = { fileUuid: string } | { color: Color } | null;

export interface TextElement {
  type: 'text';
  text: string;
  x: number;
  y: number;
  width: number;
  fontSize: number;
  minFontSize: number;
  /** A bundled face (`NotoSans`, `NotoSans-Bold`), or an uploaded TTF/OTF file: `files/{uuid}`, its bytes in `files`. */
  font: string;
  color: Color;
  align: 'left' | 'center' | 'right';
  shrinkToFit: boolean;
}

export interface QrElement {
  type: 'qr';
  x: number;
  y: number;
  /** The square's side, quiet zone included (drawn white so the code scans on any background). */
  size: number;
  color: Color;
}

export interface ImageElement {
  type: 'image';
  fileUuid: string;
  x: number;
  y: number;
  width: number;
  /** Without it the image keeps its aspect ratio; with it, it is fitted inside the box. */
  height: number | null;
}

export interface LineElement {
  type: 'line';
  x: number;
  y: number;
  x2: number;
  y2: number;
  thickness: number;
  color: Color;
}

export interface RectElement {
  type: 'rect';
  x: number;
  y: number;
  width: number;
  height: number;
  thickness: number;
  color: Color | null;
  fill: Color | null;
}

export type LayoutElement = TextElement | QrElement | ImageElement | LineElement | RectElement;

export interface Layout {
  page: LayoutPage;
  background: LayoutBackground;
  elements: LayoutElement[];
}

/** A file a layout draws: an uploaded PDF (its first page), PNG or JPEG image, or TTF/OTF font; untrusted bytes. */
export interface LayoutFile {
  mimeType: 'application/pdf' | 'image/png' | 'image/jpeg' | 'font/ttf' | 'font/otf';
  bytes: Uint8Array;
  /**
   * What the worker keeps this file's prepared form under (layout-file-cache.ts): its tenant, uuid and
   * SHA-256, so another tenant's file or other bytes never meet a cached one.
   */
  cacheKey: string;
}

/** One page to draw: the layout with its text filled in, the files it names, the link its QR codes carry. */
export interface LayoutDrawing {
  layout: Layout;
  files: Record<string, LayoutFile>;
  verificationUrl: string;
}
