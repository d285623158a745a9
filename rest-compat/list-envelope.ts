import type { Request } from 'express';

interface Paging {
  page: number;
  perPage: number;
  total: number;
  /** The total is an estimate (a filtered list of more than 10,000 rows, db/page-statement.ts); meta says so. */
  totalIsEstimate?: boolean;
}

/** Laravel's paginator body: `data`, `meta` and `links` (absolute URLs keeping the other query parameters). */
export function listBody(data: unknown[], { page, perPage, total, totalIsEstimate = false }: Paging, apiBaseUrl: string, req: Request) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  // The path as the client sent it (a router mounted at a collection sees only the rest of it).
  const [path = '', query = ''] = req.originalUrl.split('?', 2);
  const collectionPath = path.replace(/^\/api\/v1/, '');
  const link = (target: number) => {
    const params = new URLSearchParams(query);
    params.set('page', String(target));
    return `${apiBaseUrl}${collectionPath}?${params.toString()}`;
  };
  return {
    data,
    meta: { current_page: page, per_page: perPage, total, total_is_estimate: totalIsEstimate, last_page: lastPage },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
  };
}
