import { type RequestHandler, Router } from 'express';
import type { PublicContextOf } from '../http/public-context.js';
import { renderPortfolioNotFound, renderPortfolioPage } from './portfolio-page.html.js';
import { loadPublicPortfolio } from './public-portfolio.js';

/** GET /p/{tenant}/{slug}: load the public view, render it (or the 404 page). */
export function portfolioPages(publicContext: PublicContextOf, ...before: RequestHandler[]): Router {
  const show: RequestHandler<{ tenant: string; slug: string }> = async (req, res, next) => {
    try {
      const portfolio = await loadPublicPortfolio(publicContext(req), req.params.tenant, req.params.slug);
      res.set('Cache-Control', 'no-cache').type('html');
      if (!portfolio) res.status(404).send(renderPortfolioNotFound());
      else res.send(renderPortfolioPage(portfolio));
    } catch (error) {
      next(error);
    }
  };
  return Router().get('/p/:tenant/:slug', ...before, show);
}
