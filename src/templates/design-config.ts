import type { DocumentDesign } from '../documents/document-design.js';

/**
 * The part of a template's `design_config` the generated documents read: `colors`, an object of
 * `#rrggbb` strings under the keys below. Everything else in `design_config` belongs to the design
 * tool and is stored untouched.
 */
export const DESIGN_COLOR_KEYS = ['primary', 'accent', 'text'] as const;
type ColorKey = (typeof DESIGN_COLOR_KEYS)[number];

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with `design_config.colors`, one message each; empty when it is usable or absent. */
export function designConfigErrors(config: Record<string, unknown> | null | undefined): string[] {
  if (!config || config.colors === undefined) return [];
  if (!isObject(config.colors)) return ['The design config colors must be an object of "#rrggbb" colours.'];
  return Object.entries(config.colors).flatMap(([key, value]) => {
    if (!(DESIGN_COLOR_KEYS as readonly string[]).includes(key)) {
      return [`The design config colors key "${key}" is unknown; use ${DESIGN_COLOR_KEYS.join(', ')}.`];
    }
    return typeof value === 'string' && HEX_COLOR.test(value) ? [] : [`The design config colors.${key} must be a "#rrggbb" colour.`];
  });
}

/** The colours a document uses from a stored config; entries that do not validate are left out. */
export function documentColors(config: Record<string, unknown> | null | undefined): DocumentDesign['colors'] {
  const colors = isObject(config?.colors) ? config.colors : {};
  const valid = DESIGN_COLOR_KEYS.filter((key) => typeof colors[key] === 'string' && HEX_COLOR.test(colors[key] as string));
  return Object.fromEntries(valid.map((key) => [key, colors[key] as string])) as Partial<Record<ColorKey, string>>;
}
