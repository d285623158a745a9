import { rgb, type RGB } from 'pdf-lib';

/** What a certificate template and its institution lend the generated documents (all optional). */
export interface DocumentDesign {
  /** `#rrggbb` colours from the template's `design_config.colors` (validated in src/templates/design-config.ts). */
  colors?: { primary?: string; accent?: string; text?: string };
  /** The institution's badge image, PNG; anything else is left out. */
  logo?: Uint8Array | null;
}

/** The colours a document is drawn with, derived from the three a template may set. */
export interface Palette {
  primary: RGB;
  /** Text drawn on a primary-coloured band: white or near-black, whichever reads better. */
  onPrimary: RGB;
  accent: RGB;
  text: RGB;
  muted: RGB;
  /** A light wash of the primary colour for boxes and table stripes. */
  tint: RGB;
  faintTint: RGB;
}

export const DEFAULT_COLORS = { primary: '#1d3557', accent: '#b08d3c', text: '#1a1a1a' } as const;

const HEX = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;

function parse(hex: string | undefined, fallback: string): [number, number, number] {
  const match = HEX.exec(hex ?? '') ?? HEX.exec(fallback)!;
  return [1, 2, 3].map((group) => parseInt(match[group], 16) / 255) as [number, number, number];
}

/** Mixes a colour with white: `amount` 0 is the colour, 1 is white. */
const lighten = ([r, g, b]: [number, number, number], amount: number) => rgb(r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount);

/** WCAG relative luminance, to pick the text colour that reads on a band. */
function luminance(channels: [number, number, number]): number {
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function palette(colors: DocumentDesign['colors']): Palette {
  const primary = parse(colors?.primary, DEFAULT_COLORS.primary);
  const text = parse(colors?.text, DEFAULT_COLORS.text);
  return {
    primary: rgb(...primary),
    onPrimary: luminance(primary) > 0.4 ? rgb(0.1, 0.1, 0.1) : rgb(1, 1, 1),
    accent: rgb(...parse(colors?.accent, DEFAULT_COLORS.accent)),
    text: rgb(...text),
    muted: lighten(text, 0.4),
    tint: lighten(primary, 0.88),
    faintTint: lighten(primary, 0.95),
  };
}
