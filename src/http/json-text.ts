import { setImmediate as nextTurn } from 'node:timers/promises';
import { JSON_SLICE_BYTES } from '../context/response-budget.js';
import { JsonText } from '../db/json-text.js';

/**
 * Containers nearer the top than this are written member by member; deeper values in one
 * JSON.stringify. Four levels reach a GraphQL connection's rows (`data.x.nodes[i]`), two more their
 * own lists, so one native call writes at most a row's worth, whose large fields the budget bounds.
 */
const WALKED_LEVELS = 6;

class AnswerTooLarge extends Error {}

/** An answer written out: its UTF-8 text in slices of about JSON_SLICE_BYTES, and their total bytes. */
export interface JsonSlices {
  slices: string[];
  bytes: number;
}

/**
 * Writes `value` as JSON.stringify would (JsonText values, db/json-text.ts, copied as they are), in slices
 * (JSON_SLICE_BYTES of text, then a turn of the event loop), counting UTF-8 bytes as it goes:
 * `undefined`, without finishing, as soon as the text would pass `maxBytes`. An answer of several MB
 * never holds the event loop in one go, and one over the budget is never written out whole.
 */
export async function jsonSlicesWithin(value: unknown, maxBytes: number): Promise<JsonSlices | undefined> {
  const writer = new JsonWriter(maxBytes);
  try {
    await writer.write(serialisable(value, '') ?? null, 0);
    return writer.finish();
  } catch (error) {
    if (error instanceof AnswerTooLarge) return undefined;
    throw error;
  }
}

/** `jsonSlicesWithin` as one string (for Apollo's `stringifyResult`, which must return one). */
export async function jsonWithin(value: unknown, maxBytes: number): Promise<string | undefined> {
  return (await jsonSlicesWithin(value, maxBytes))?.slices.join('');
}

class JsonWriter {
  private readonly slices: string[] = [];
  /** UTF-8 bytes of the finished slices. */
  private bytes = 0;
  private parts: string[] = [];
  /** Characters of `parts`: never more than their UTF-8 bytes, so past the budget means over it. */
  private partChars = 0;

  constructor(private readonly maxBytes: number) {}

  finish(): JsonSlices {
    this.cut();
    return { slices: this.slices, bytes: this.bytes };
  }

  private push(text: string): void {
    this.partChars += text.length;
    if (this.bytes + this.partChars > this.maxBytes) throw new AnswerTooLarge();
    this.parts.push(text);
  }

  /** Closes the slice: one string, its bytes counted once. */
  private cut(): void {
    if (this.parts.length === 0) return;
    const slice = this.parts.join('');
    this.bytes += Buffer.byteLength(slice);
    if (this.bytes > this.maxBytes) throw new AnswerTooLarge();
    this.slices.push(slice);
    this.parts = [];
    this.partChars = 0;
  }

  /** After a large enough piece of work: close the slice and let the event loop turn. */
  private async paced(): Promise<void> {
    if (this.partChars < JSON_SLICE_BYTES) return;
    this.cut();
    await nextTurn();
  }

  /** Writes one value as JSON.stringify would, its `toJSON` already applied (`value` below). */
  async write(value: unknown, level: number): Promise<void> {
    if (value instanceof JsonText) {
      this.push(value.text);
      await this.paced();
    } else if (level >= WALKED_LEVELS || value === null || typeof value !== 'object' || fitsOneCall(value, JSON_SLICE_BYTES - this.partChars)) {
      this.push(JSON.stringify(value) ?? 'null');
      await this.paced();
    } else if (Array.isArray(value)) await this.array(value, level);
    else await this.object(value as Record<string, unknown>, level);
  }

  private async array(items: unknown[], level: number): Promise<void> {
    this.push('[');
    for (let index = 0; index < items.length; index++) {
      if (index > 0) this.push(',');
      const item = serialisable(items[index], String(index));
      await this.write(item === undefined ? null : item, level + 1);
    }
    this.push(']');
  }

  private async object(members: Record<string, unknown>, level: number): Promise<void> {
    this.push('{');
    let first = true;
    for (const key of Object.keys(members)) {
      const member = serialisable(members[key], key);
      if (member === undefined) continue;
      this.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      await this.write(member, level + 1);
    }
    this.push('}');
  }
}

/**
 * Whether `value` can be written by one JSON.stringify: no JsonText in it (copied, not re-serialised)
 * and, counting its strings and keys, short of `room` characters, so one native call does at most a
 * slice's work. Walking member by member costs about twelve times JSON.stringify (a 40 KB page of 50
 * enrollments with three relations: 0.74 ms against 0.06 ms); only large answers need it.
 */
function fitsOneCall(value: object, room: number): boolean {
  let left = room;
  const fits = (item: unknown): boolean => {
    if (typeof item === 'string') return (left -= item.length + 3) > 0;
    if (item === null || typeof item !== 'object') return (left -= 24) > 0;
    if (item instanceof JsonText || (hasToJSON(item) && !(item instanceof Date))) return false;
    if (Array.isArray(item)) return item.every(fits);
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      left -= key.length + 4;
      if (!fits((item as Record<string, unknown>)[key])) return false;
    }
    return left > 0;
  };
  return fits(value);
}

/** A value after its `toJSON` (JsonText kept as it is), or undefined for what JSON leaves out (undefined, functions, symbols). */
function serialisable(raw: unknown, key: string): unknown {
  if (raw instanceof JsonText) return raw;
  const value = hasToJSON(raw) ? raw.toJSON(key) : raw;
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
}

const hasToJSON = (value: unknown): value is { toJSON(key: string): unknown } =>
  typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
