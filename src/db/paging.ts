/** Paging as the database reads it: positions, page sizes and the cursors that name a position. */
import type { RelatedRows } from './page-statement.js';

export enum SortOrder {
  asc = 'asc',
  desc = 'desc',
}

export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 100;
/** The furthest position a cursor may name: one a JavaScript number holds exactly (PostgreSQL's offset is a bigint). */
export const MAX_CURSOR_POSITION = Number.MAX_SAFE_INTEGER;

export function encodeCursor(position: number): string {
  return Buffer.from(`pos:${position}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  const match = /^pos:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const position = match ? Number(match[1]) : Number.NaN;
  return position <= MAX_CURSOR_POSITION ? position : Number.NaN;
}

/** One page of rows plus the total the whole filtered list has (when asked), or whether rows follow. */
export interface Page<T> {
  rows: T[];
  /** Rows in the whole filtered list; not counted when the caller did not ask (`withTotal: false`). */
  total?: number;
  /** The total is the planner's estimate: a filtered list of more than EXACT_TOTAL_LIMIT rows (db/page-statement.ts). */
  totalIsEstimate?: boolean;
  /** Whether rows follow the page, known without the total. */
  hasMore: boolean;
  offset: number;
  /** Rows the page's rows point at, read with the page (`ListOptions.related`): for the request's loaders. */
  related?: RelatedRows[];
}
