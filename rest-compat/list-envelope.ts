import type { Request } from 'express';

interface Paging {
  page: number;
  perPage: number;
  total: number;
}

/** Laravel's paginator body: `data`, `meta` and `links` (absolute URLs keeping the other query parameters). */
export function listBody(data: unknown[], { page, perPage, total }: Paging, apiBaseUrl: string, req: Request) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const link = (target: number) => {
    const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    params.set('page', String(target));
    return `${apiBaseUrl}${req.path === '/' ? '' : req.path}?${params.toString()}`;
  };
  return {
    data,
    meta: { current_page: page, per_page: perPage, total, last_page: lastPage },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
  };
}
