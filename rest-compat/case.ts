import { snakeCase } from '../src/identifier-case.js';

/** camelCase → snake_case for the REST layer's field names (GraphQL is camelCase, REST snake_case; the way back is src/identifier-case.ts). */
const snakeCache = new Map<string, string>();

/** Memoised: a page renames the same few dozen field names over and over. */
export function toSnake(key: string): string {
  let snake = snakeCache.get(key);
  if (snake === undefined) {
    snake = snakeCase(key);
    if (snakeCache.size < 10_000) snakeCache.set(key, snake);
  }
  return snake;
}

/**
 * A JSON object: what a client's keys are in. Class instances (an upload part, its buffers, a Date)
 * are values, passed on as they are and never walked: a pooled 1 MiB buffer would be a million keys.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Renames keys at every level, iteratively: the body's depth is the client's to choose. `opaque`
 * names fields whose value is client data (a JSON design configuration) and must pass through untouched.
 */
export function renameKeys(value: unknown, rename: (key: string) => string, opaque: ReadonlySet<string> = new Set()): unknown {
  const root: { value: unknown } = { value };
  const pending: [source: unknown, target: Record<string | number, unknown>, key: string | number][] = [[value, root, 'value']];
  while (pending.length > 0) {
    const [source, target, key] = pending.pop()!;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      target[key] = copy;
      source.forEach((item, index) => pending.push([item, copy as unknown as Record<number, unknown>, index]));
    } else if (isPlainObject(source)) {
      const copy: Record<string, unknown> = {};
      target[key] = copy;
      for (const [name, item] of Object.entries(source)) {
        const renamed = rename(name);
        // Assigned now (placeholder or final) so the copy keeps the source's key order.
        copy[renamed] = item;
        if (!opaque.has(name) && !opaque.has(renamed)) pending.push([item, copy, renamed]);
      }
    } else {
      target[key] = source;
    }
  }
  return root.value;
}
