import type { Request } from 'express';
import { encodeKeyCursor, decodeCursor } from '../src/db/paging.js';
import type { RestPaging } from './query-params.js';

/** What a REST list selects of its connection besides the nodes: the total and the cursors of the page's ends. */
export const LIST_FIELDS = 'totalCount totalCountIsEstimate pageInfo { startCursor endCursor hasNextPage hasPreviousPage }';

/** The connection's fields of `LIST_FIELDS`, renamed to snake_case. */
export interface ListResult {
  total_count: number;
  /** The total is an estimate (a filtered list of more than 10,000 rows, db/page-statement.ts); `meta.total_is_estimate` says so. */
  total_count_is_estimate?: boolean;
  page_info: { start_cursor: string | null; end_cursor: string | null; has_next_page: boolean; has_previous_page: boolean };
}

/**
 * Laravel's paginator bodies: `data`, `meta` and `links` (absolute URLs keeping the other query
 * parameters). With page numbers the links name pages; with `cursor` (Laravel's cursor paginator)
 * they carry the cursors of the page's ends, and `meta` the same cursors.
 */
export function listBody(
  data: unknown[],
  paging: RestPaging,
  { total_count: total, total_count_is_estimate: estimated = false, page_info: info }: ListResult,
  apiBaseUrl: string,
  req: Request,
) {
  // The path as the client sent it (a router mounted at a collection sees only the rest of it).
  const [path = '', query = ''] = req.originalUrl.split('?', 2);
  const collectionPath = path.replace(/^\/api\/v1/, '');
  const link = (set: Record<string, string>, drop: string) => {
    const params = new URLSearchParams(query);
    params.delete(drop);
    for (const [name, value] of Object.entries(set)) params.set(name, value);
    return `${apiBaseUrl}${collectionPath}?${params.toString()}`;
  };
  if (paging.cursor) {
    const next = info.has_next_page && info.end_cursor ? restCursor(info.end_cursor, false) : null;
    const prev = info.has_previous_page && info.start_cursor ? restCursor(info.start_cursor, true) : null;
    return {
      data,
      meta: { per_page: paging.perPage, total, total_is_estimate: estimated, next_cursor: next, prev_cursor: prev },
      links: {
        first: link({ cursor: '' }, 'page'),
        last: null,
        prev: prev && link({ cursor: prev }, 'page'),
        next: next && link({ cursor: next }, 'page'),
      },
    };
  }
  const { page, perPage } = paging;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const pageLink = (target: number) => link({ page: String(target) }, 'cursor');
  return {
    data,
    meta: { current_page: page, per_page: perPage, total, total_is_estimate: estimated, last_page: lastPage },
    links: {
      first: pageLink(1),
      last: pageLink(lastPage),
      prev: page > 1 ? pageLink(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? pageLink(page + 1) : null,
    },
  };
}

/** A connection's edge cursor as a REST `cursor`: the same key, marked backward for `links.prev`. */
function restCursor(edgeCursor: string, backward: boolean): string {
  const cursor = decodeCursor(edgeCursor);
  return cursor?.kind === 'key' ? encodeKeyCursor(cursor.key, backward) : edgeCursor;
}
