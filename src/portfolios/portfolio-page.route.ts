import { type RequestHandler, Router } from 'express';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { chooseLocale } from '../pages/locale.js';
import { renderNotFoundPage } from '../pages/not-found-page.js';
import { renderPortfolioPage } from '../pages/portfolio-page.js';
import { sendPage } from '../pages/send-page.js';
import { loadPublicPortfolio } from './public-portfolio.js';

/** GET /p/{tenant}/{slug}: load the public view, render it (or the 404 page) in the reader's language. */
export function portfolioPages(orm: Orm, config: Config, ...before: RequestHandler[]): Router {
  const show: RequestHandler<{ tenant: string; slug: string }> = async (req, res, next) => {
    try {
      const portfolio = await loadPublicPortfolio(orm.em.fork(), req.params.tenant, req.params.slug, config.publicBaseUrl);
      const { locale } = chooseLocale(req);
      if (!portfolio) sendPage(res, locale, renderNotFoundPage('page', locale), 404);
      else sendPage(res, locale, renderPortfolioPage(portfolio, locale));
    } catch (error) {
      next(error);
    }
  };
  return Router().get('/p/:tenant/:slug', ...before, show);
}
