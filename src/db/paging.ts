/** Paging as the database reads it: page sizes, positions, the cursors that name a place in a list, and keyset bounds as SQL. */
import { createHash } from 'node:crypto';
import type { RelatedRows } from './page-statement.js';

export enum SortOrder {
  asc = 'asc',
  desc = 'desc',
}

export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 100;
/** The furthest position a cursor may name: one a JavaScript number holds exactly (PostgreSQL's offset is a bigint). */
export const MAX_CURSOR_POSITION = Number.MAX_SAFE_INTEGER;

/**
 * A row's place in a sorted list: the value of the sort column (as PostgreSQL writes it in JSON, so
 * timestamps keep their microseconds) and the row's uuid, which breaks ties. `sort` names the order
 * the key belongs to (`created_at:desc`, or `uuid` for the default order).
 */
export interface CursorKey {
  sort: string;
  value: unknown;
  uuid: string;
}

/**
 * What a cursor names: a key (every cursor this service hands out), or a position — how REST page
 * numbers travel to the GraphQL connection, and what cursors named before keys existed.
 */
export type Cursor = { kind: 'key'; key: CursorKey; backward: boolean } | { kind: 'position'; position: number };

/** `sort` of a `CursorKey`: the column and order a list is read in. */
export const sortSignature = (sort: { column: string; order: SortOrder } | undefined) => (sort ? `${sort.column}:${sort.order}` : 'uuid');

const KEY_VERSION = 'k1';

/** A short digest that makes an edited cursor fail loudly: integrity, not secrecy (a key only names a place in the caller's own list). */
const digest = (payload: string) => createHash('sha256').update(payload).digest('base64url').slice(0, 8);

/** The opaque text of a key; `backward` marks a REST `links.prev` cursor (the rows before the key). */
export function encodeKeyCursor(key: CursorKey, backward = false): string {
  const payload = JSON.stringify([key.sort, key.value, key.uuid, ...(backward ? [1] : [])]);
  return Buffer.from(`${KEY_VERSION}.${digest(payload)}.${payload}`).toString('base64url');
}

export function encodePosition(position: number): string {
  return Buffer.from(`pos:${position}`).toString('base64url');
}

/** The cursor a text names, or undefined when it is malformed, edited or of an unknown version. */
export function decodeCursor(cursor: string): Cursor | undefined {
  const text = Buffer.from(cursor, 'base64url').toString();
  const position = /^pos:(\d{1,16})$/.exec(text);
  if (position) return Number(position[1]) <= MAX_CURSOR_POSITION ? { kind: 'position', position: Number(position[1]) } : undefined;
  const [version, check, ...rest] = text.split('.');
  const payload = rest.join('.');
  if (version !== KEY_VERSION || check !== digest(payload)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length < 3 || parsed.length > 4 || typeof parsed[0] !== 'string' || typeof parsed[2] !== 'string') return undefined;
  const [sort, value, uuid, backward] = parsed as [string, unknown, string, number?];
  if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) return undefined;
  return { kind: 'key', key: { sort, value, uuid }, backward: backward === 1 };
}

/** One page of rows plus the total the whole filtered list has (when asked), and whether rows follow or precede it. */
export interface Page<T> {
  rows: T[];
  /** Each row's cursor, in row order. */
  cursors: string[];
  /** Rows in the whole filtered list; not counted when the caller did not ask (`withTotal: false`). */
  total?: number;
  /** The total is the planner's estimate: a filtered list of more than EXACT_TOTAL_LIMIT rows (db/page-statement.ts). */
  totalIsEstimate?: boolean;
  /** Whether rows follow the page, known without the total. */
  hasMore: boolean;
  /** Whether rows precede the page. */
  hasPrevious: boolean;
  /** Rows the page's rows point at, read with the page (`ListOptions.related`): for the request's loaders. */
  related?: RelatedRows[];
}

/**
 * Keyset paging as SQL: the rows after (or before) a key in a list ordered by one column, then uuid
 * ascending. NULLs count as the largest values, as PostgreSQL orders them by default (last when
 * ascending, first when descending), so the order and these conditions agree in both directions.
 */

/** A row's place: its sort column's value (absent when the list is in uuid order) and its uuid. */
export interface KeyBound {
  value?: unknown;
  uuid: string;
}

export interface KeysetOrder {
  /** The sort column as SQL (`t."created_at"`); undefined for uuid order. */
  column: string | undefined;
  descending: boolean;
  /** Read from the list's end (Relay `last`): every direction flipped. */
  reverse: boolean;
}

/** The `order by` terms of a list: its column, then uuid; reversed for reading the list from its end. */
export function keysetOrderTerms(order: KeysetOrder, uuid: string): { expression: string; direction: 'asc' | 'desc' }[] {
  const direction = (descending: boolean): 'asc' | 'desc' => (descending !== order.reverse ? 'desc' : 'asc');
  return [...(order.column ? [{ expression: order.column, direction: direction(order.descending) }] : []), { expression: uuid, direction: direction(false) }];
}

/** `order by` of a list as SQL (see `keysetOrderTerms`). */
export const keysetOrderBy = (order: KeysetOrder, uuid: string) =>
  keysetOrderTerms(order, uuid)
    .map(({ expression, direction }) => `${expression} ${direction}`)
    .join(', ');

/**
 * The condition that keeps rows strictly after (`side` after) or before `bound` in the list's order.
 * `parameter` binds a value and returns its placeholder (called once per placeholder written).
 */
export function keysetCondition(
  order: Pick<KeysetOrder, 'column' | 'descending'>,
  uuid: string,
  bound: KeyBound,
  side: 'after' | 'before',
  parameter: (value: unknown) => string,
): string {
  const uuidOp = side === 'after' ? '>' : '<';
  const column = order.column;
  if (!column) return `${uuid} ${uuidOp} ${parameter(bound.uuid)}`;
  // Towards larger values of the column: after in an ascending list, before in a descending one.
  const larger = order.descending === (side === 'before');
  if (bound.value === null || bound.value === undefined) {
    return larger
      ? `(${column} is null and ${uuid} ${uuidOp} ${parameter(bound.uuid)})`
      : `(${column} is not null or ${uuid} ${uuidOp} ${parameter(bound.uuid)})`;
  }
  const tie = () => `${uuid} ${uuidOp} ${parameter(bound.uuid)}`;
  const value = () => parameter(bound.value);
  // Placeholders are made in the order they are written ('?' placeholders bind by position).
  // The non-strict bound first, so an index on the column narrows the scan; NULLs sit beyond every value.
  if (larger) return `(${column} is null or (${column} >= ${value()} and (${column} > ${value()} or ${tie()})))`;
  return `(${column} <= ${value()} and (${column} < ${value()} or ${tie()}))`;
}
