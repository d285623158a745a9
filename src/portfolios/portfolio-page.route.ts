import { type RequestHandler, Router } from 'express';
import type { PublicContextOf } from '../http/public-context.js';
import { chooseLocale } from '../pages/locale.js';
import { renderNotFoundPage } from '../pages/not-found-page.js';
import { renderPortfolioPage } from '../pages/portfolio-page.js';
import { sendPage } from '../pages/send-page.js';
import { loadPublicPortfolio } from './public-portfolio.js';

/** GET /p/{tenant}/{slug}: load the public view, render it (or the 404 page) in the reader's language. */
export function portfolioPages(publicContext: PublicContextOf, ...before: RequestHandler[]): Router {
  const show: RequestHandler<{ tenant: string; slug: string }> = async (req, res, next) => {
    try {
      const portfolio = await loadPublicPortfolio(publicContext(req), req.params.tenant, req.params.slug);
      const { locale } = chooseLocale(req);
      if (!portfolio) sendPage(res, locale, renderNotFoundPage('page', locale), 404);
      else sendPage(res, locale, renderPortfolioPage(portfolio, locale));
    } catch (error) {
      next(error);
    }
  };
  return Router().get('/p/:tenant/:slug', ...before, show);
}
