/** camelCase ⇄ snake_case for the REST layer's field names (GraphQL is camelCase, REST snake_case). */
const snakeCache = new Map<string, string>();

/** Memoised: a page renames the same few dozen field names over and over. */
export function toSnake(key: string): string {
  let snake = snakeCache.get(key);
  if (snake === undefined) {
    snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    if (snakeCache.size < 10_000) snakeCache.set(key, snake);
  }
  return snake;
}
export const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/**
 * Renames keys recursively. `opaque` names fields whose value is client data (a JSON design
 * configuration) and must pass through untouched.
 */
export function renameKeys(value: unknown, rename: (key: string) => string, opaque: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename, opaque));
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const renamed = rename(key);
    result[renamed] = opaque.has(key) || opaque.has(renamed) ? item : renameKeys(item, rename, opaque);
  }
  return result;
}
