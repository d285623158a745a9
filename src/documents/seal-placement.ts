/**
 * Where the visible signature goes, in PDF points from the bottom-left corner of the page's visible
 * area. A template's `design_config.seal` sets any of these (docs/documents.md › Signature stamp).
 */
export interface SealPlacement {
  page: 'first' | 'last';
  /** Left edge; undefined: right-aligned with the margin. */
  x?: number;
  /** Bottom edge; undefined with `x` undefined too: the lowest free spot of the page (signature-field.ts). */
  y?: number;
  width: number;
  height: number;
}

export const DEFAULT_SEAL: SealPlacement = { page: 'first', width: 270, height: 84 };
const LIMITS = { width: [150, 600], height: [60, 300] } as const;
export const SEAL_MARGIN = 24;

/** The template's seal settings over the defaults; values of the wrong type or out of range are ignored. */
export function sealPlacement(designConfig: unknown): SealPlacement {
  const seal = isRecord(designConfig) && isRecord(designConfig.seal) ? designConfig.seal : {};
  const number = (key: string, [min, max]: readonly [number, number] = [0, 100_000]) => {
    const value = seal[key];
    return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  };
  return {
    page: seal.page === 'last' ? 'last' : 'first',
    x: number('x'),
    y: number('y'),
    width: number('width', LIMITS.width) ?? DEFAULT_SEAL.width,
    height: number('height', LIMITS.height) ?? DEFAULT_SEAL.height,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
