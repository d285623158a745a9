import type { FieldErrors } from '../errors/domain-error.js';
import type { Color, Layout, LayoutBackground, LayoutElement, LayoutPage, TextElement } from '../documents/layout-drawing.js';
import { placeholderErrors } from './placeholders.js';

export type { Layout } from '../documents/layout-drawing.js';

/*
 * The layout language of `design_config` (docs/templates.md): a page, a background and positioned
 * elements, in millimetres from the page's top-left corner (font sizes and line thickness in points).
 * A template "has a layout" when `design_config.elements` is a list: then certificates may omit
 * their file and the service draws it. Other keys of `design_config` belong to the design tool.
 */

export const PAGE_SIZES = { A3: [297, 420], A4: [210, 297], A5: [148, 210], Letter: [215.9, 279.4], Legal: [215.9, 355.6] } as const;
export const BUNDLED_FONTS = ['NotoSans', 'NotoSans-Bold'] as const;
export const ALIGNMENTS = ['left', 'center', 'right'] as const;
const MAX_ELEMENTS = 200;
const MAX_TEXT_CHARS = 2000;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How a template names an uploaded file where the language takes a name (`path`, a text's `font`). */
const FILE_NAME = /^files\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The uuid of the uploaded file `files/{uuid}` names, or null when the name is something else. */
export function namedFileUuid(name: unknown): string | null {
  const match = typeof name === 'string' ? FILE_NAME.exec(name) : null;
  return match ? match[1]!.toLowerCase() : null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a stored `design_config` describes a layout the service can draw (CONTRACT: `design_config.elements`). */
export function hasLayout(config: unknown): boolean {
  return isObject(config) && Array.isArray(config.elements);
}

/**
 * Reads one value at a path, recording what is wrong with it under that path. Paths are the ones a
 * client wrote (`designConfig.elements[2].font_size`; REST shows `design_config.…`).
 */
class Reader {
  readonly errors: FieldErrors = {};

  fail(path: string, message: string): undefined {
    (this.errors[path] ??= []).push(message);
    return undefined;
  }

  number(object: Json, key: string, path: string, range: readonly [number, number], fallback?: number): number | undefined {
    const value = object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (value === undefined) return this.fail(`${path}.${key}`, `The ${key} field is required.`);
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(`${path}.${key}`, `The ${key} field must be a number.`);
    if (value < range[0] || value > range[1]) return this.fail(`${path}.${key}`, `The ${key} field must be between ${range[0]} and ${range[1]}.`);
    return value;
  }

  color(object: Json, key: string, path: string, fallback: Color | null): Color | null | undefined {
    const value = object[key];
    if (value === undefined || value === null) return fallback;
    return typeof value === 'string' && HEX_COLOR.test(value) ? value : this.fail(`${path}.${key}`, `The ${key} field must be a "#RRGGBB" colour.`);
  }

  choice<T extends string>(object: Json, key: string, path: string, choices: readonly T[], fallback: T): T | undefined {
    const value = object[key];
    if (value === undefined) return fallback;
    return choices.includes(value as T) ? (value as T) : this.fail(`${path}.${key}`, `The ${key} field must be one of: ${choices.join(', ')}.`);
  }

  fileUuid(object: Json, key: string, path: string): string | undefined {
    const value = object[key];
    if (value === undefined) return this.fail(`${path}.${key}`, `The ${key} field is required.`);
    return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : this.fail(`${path}.${key}`, `The ${key} field must be a file uuid.`);
  }

  /** Keys the element does not know: a typo (`fontSize`) would otherwise be ignored silently. */
  known(object: Json, path: string, keys: readonly string[], what: string): void {
    for (const key of Object.keys(object)) if (!keys.includes(key)) this.fail(path, `The key "${key}" is not part of ${what}; use ${keys.join(', ')}.`);
  }
}

function readPage(read: Reader, value: unknown): LayoutPage {
  const fallback = { width: PAGE_SIZES.A4[1], height: PAGE_SIZES.A4[0] };
  if (value === undefined) return fallback;
  if (!isObject(value)) return read.fail('designConfig.page', 'The page must be an object with size and orientation.') ?? fallback;
  read.known(value, 'designConfig.page', ['size', 'orientation'], 'the page');
  const size = value.size ?? 'A4';
  let dimensions: readonly number[] = PAGE_SIZES.A4;
  if (typeof size === 'string' && size in PAGE_SIZES) dimensions = PAGE_SIZES[size as keyof typeof PAGE_SIZES];
  else if (Array.isArray(size) && size.length === 2 && size.every((mm) => typeof mm === 'number' && mm >= 50 && mm <= 1200)) dimensions = size as number[];
  else read.fail('designConfig.page.size', `The size field must be one of ${Object.keys(PAGE_SIZES).join(', ')} or [width_mm, height_mm] between 50 and 1200.`);
  const orientation = read.choice(value, 'orientation', 'designConfig.page', ['landscape', 'portrait'], 'landscape');
  const [short, long] = [Math.min(dimensions[0]!, dimensions[1]!), Math.max(dimensions[0]!, dimensions[1]!)];
  return orientation === 'portrait' ? { width: short, height: long } : { width: long, height: short };
}

function readBackground(read: Reader, value: unknown): LayoutBackground {
  const path = 'designConfig.background';
  if (value === undefined || value === null) return null;
  if (!isObject(value) || 'file_uuid' in value === 'color' in value)
    return read.fail(path, 'The background must be {"file_uuid": "…"} or {"color": "#RRGGBB"}.') ?? null;
  read.known(value, path, ['file_uuid', 'color'], 'the background');
  if ('color' in value) {
    const color = read.color(value, 'color', path, null);
    return color ? { color } : null;
  }
  const fileUuid = read.fileUuid(value, 'file_uuid', path);
  return fileUuid ? { fileUuid } : null;
}

const ELEMENT_KEYS = {
  text: ['type', 'text', 'x', 'y', 'width', 'font_size', 'min_font_size', 'font', 'color', 'align', 'shrink_to_fit'],
  qr: ['type', 'x', 'y', 'size', 'color'],
  image: ['type', 'file_uuid', 'x', 'y', 'width', 'height'],
  line: ['type', 'x', 'y', 'x2', 'y2', 'thickness', 'color'],
  rect: ['type', 'x', 'y', 'width', 'height', 'thickness', 'color', 'fill'],
} as const;
type ElementType = keyof typeof ELEMENT_KEYS;

function readElement(read: Reader, page: LayoutPage, value: unknown, path: string): LayoutElement | undefined {
  if (!isObject(value) || !(typeof value.type === 'string' && value.type in ELEMENT_KEYS)) {
    return read.fail(`${path}.type`, `The type field must be one of: ${Object.keys(ELEMENT_KEYS).join(', ')}.`);
  }
  const type = value.type as ElementType;
  read.known(value, path, ELEMENT_KEYS[type], `a ${type} element`);
  const x = read.number(value, 'x', path, [0, page.width]);
  const y = read.number(value, 'y', path, [0, page.height]);
  const color = read.color(value, 'color', path, '#000000');
  if (type === 'text') return readText(read, page, value, path, { x, y, color });
  if (type === 'qr') return { type, x: x!, y: y!, size: read.number(value, 'size', path, [5, Math.min(page.width, page.height)])!, color: color! };
  if (type === 'image') {
    const width = read.number(value, 'width', path, [1, page.width])!;
    const height = value.height === undefined ? null : read.number(value, 'height', path, [1, page.height])!;
    return { type, fileUuid: read.fileUuid(value, 'file_uuid', path)!, x: x!, y: y!, width, height };
  }
  const thickness = read.number(value, 'thickness', path, [0.1, 72], 1)!;
  if (type === 'line') {
    return {
      type,
      x: x!,
      y: y!,
      x2: read.number(value, 'x2', path, [0, page.width])!,
      y2: read.number(value, 'y2', path, [0, page.height])!,
      thickness,
      color: color!,
    };
  }
  const width = read.number(value, 'width', path, [0.1, page.width])!;
  const height = read.number(value, 'height', path, [0.1, page.height])!;
  const fill = read.color(value, 'fill', path, null);
  return { type, x: x!, y: y!, width, height, thickness, color: value.color === undefined && fill ? null : color!, fill: fill ?? null };
}

function readText(read: Reader, page: LayoutPage, value: Json, path: string, at: { x?: number; y?: number; color?: Color | null }): TextElement {
  const text = value.text;
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT_CHARS) {
    read.fail(`${path}.text`, `The text field must be a string of 1 to ${MAX_TEXT_CHARS} characters.`);
  } else {
    for (const message of placeholderErrors(text)) read.fail(`${path}.text`, message);
  }
  const x = at.x ?? 0;
  const fontSize = read.number(value, 'font_size', path, [1, 300], 12)!;
  const shrinkToFit = value.shrink_to_fit === undefined ? true : value.shrink_to_fit;
  if (typeof shrinkToFit !== 'boolean') read.fail(`${path}.shrink_to_fit`, 'The shrink_to_fit field must be true or false.');
  return {
    type: 'text',
    text: typeof text === 'string' ? text : '',
    x,
    y: at.y ?? 0,
    width: read.number(value, 'width', path, [1, Math.max(1, page.width - x)], page.width - x)!,
    fontSize,
    minFontSize: read.number(value, 'min_font_size', path, [1, 300], Math.min(6, fontSize))!,
    font: readFont(read, value, path),
    color: at.color ?? '#000000',
    align: read.choice(value, 'align', path, ALIGNMENTS, 'left')!,
    shrinkToFit: shrinkToFit === true,
  };
}

/** A bundled face by name, or an uploaded TTF/OTF file as `files/{uuid}`. */
function readFont(read: Reader, value: Json, path: string): string {
  const uploaded = namedFileUuid(value.font);
  if (uploaded) return `files/${uploaded}`;
  return read.choice(value, 'font', path, BUNDLED_FONTS, 'NotoSans') ?? 'NotoSans';
}

/**
 * Reads the layout of a `design_config`: every bad key reported at once under its path, or the
 * layout with defaults applied. Null layout when the config has none (`elements` absent). With
 * `templatePath`, a `path` of `files/{uuid}` is the background when `design_config` names none.
 */
export function readLayout(config: Record<string, unknown> | null | undefined, templatePath?: string | null): { layout: Layout | null; errors: FieldErrors } {
  const read = new Reader();
  if (!config || (config.elements === undefined && config.page === undefined && config.background === undefined)) return { layout: null, errors: {} };
  const page = readPage(read, config.page);
  // The template document, when `path` names an uploaded file, is the background a layout names none of.
  const pathFile = namedFileUuid(templatePath);
  const background = config.background === undefined && pathFile ? { fileUuid: pathFile } : readBackground(read, config.background);
  const elements: LayoutElement[] = [];
  if (config.elements !== undefined && (!Array.isArray(config.elements) || config.elements.length > MAX_ELEMENTS)) {
    read.fail('designConfig.elements', `The elements field must be a list of at most ${MAX_ELEMENTS} elements.`);
  } else {
    ((config.elements as unknown[] | undefined) ?? []).forEach((value, index) => {
      const element = readElement(read, page, value, `designConfig.elements[${index}]`);
      if (element) elements.push(element);
    });
  }
  const valid = Object.keys(read.errors).length === 0 && Array.isArray(config.elements);
  return { layout: valid ? { page, background, elements } : null, errors: read.errors };
}
