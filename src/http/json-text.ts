import { JsonPacer } from '../context/response-budget.js';

/**
 * Containers nearer the top than this are written member by member; deeper values in one
 * JSON.stringify. Four levels reach a GraphQL connection's rows (`data.x.nodes[i]`), two more their
 * own lists, so one native call writes at most a row's worth, whose large fields the budget bounds.
 */
const WALKED_LEVELS = 6;

class AnswerTooLarge extends Error {}

/**
 * Writes `value` as JSON.stringify would, in slices (JSON_SLICE_BYTES of text, then a turn of the
 * event loop), counting UTF-8 bytes as it goes: `undefined`, without finishing, as soon as the text
 * would pass `maxBytes`. An answer of several MB never holds the event loop in one go, and one over
 * the budget is never written out whole.
 */
export async function jsonWithin(value: unknown, maxBytes: number): Promise<string | undefined> {
  const writer = new JsonWriter(maxBytes);
  try {
    await writer.write(serialisable(value, '') ?? null, 0);
  } catch (error) {
    if (error instanceof AnswerTooLarge) return undefined;
    throw error;
  }
  return writer.text();
}

class JsonWriter {
  private readonly parts: string[] = [];
  private bytes = 0;
  private readonly pacer = new JsonPacer();

  constructor(private readonly maxBytes: number) {}

  text(): string {
    return this.parts.join('');
  }

  private push(text: string): void {
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.maxBytes) throw new AnswerTooLarge();
    this.parts.push(text);
  }

  /** Writes one value as JSON.stringify would, its `toJSON` already applied (`value` below). */
  async write(value: unknown, level: number): Promise<void> {
    if (level >= WALKED_LEVELS || value === null || typeof value !== 'object') {
      const text = JSON.stringify(value) ?? 'null';
      this.push(text);
      await this.pacer.done(text.length);
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

/** A value after its `toJSON`, or undefined for what JSON leaves out (undefined, functions, symbols). */
function serialisable(raw: unknown, key: string): unknown {
  const value = hasToJSON(raw) ? raw.toJSON(key) : raw;
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
}

const hasToJSON = (value: unknown): value is { toJSON(key: string): unknown } =>
  typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
