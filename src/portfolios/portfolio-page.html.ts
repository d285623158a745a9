import { escapeHtml } from '../escape-html.js';
import type { PublicPortfolio, PublicPortfolioItem } from './public-portfolio.js';

// A stand-in until the public pages move to the shared template library and layout.
const day = (date: Date) => date.toISOString().slice(0, 10);
const STATUS = { issued: 'Valid', revoked: 'Revoked', expired: 'Expired' } as const;

function item(entry: PublicPortfolioItem): string {
  const badge = entry.badgeImageUrl ? `<img src="${escapeHtml(entry.badgeImageUrl)}" alt="" width="64" height="64"> ` : '';
  return `<li class="item item-${entry.status}">${badge}<strong>${escapeHtml(entry.courseName)}</strong> · ${escapeHtml(entry.institutionName)} · issued ${day(entry.issuedAt)} · <span class="status">${STATUS[entry.status]}</span> · <a href="${escapeHtml(entry.verificationUrl)}">Verify</a></li>`;
}

/** A bare, escaped HTML list of the page's visible certificates. */
export function renderPortfolioPage(portfolio: PublicPortfolio): string {
  const bio = portfolio.bio ? `<p class="bio">${escapeHtml(portfolio.bio)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(portfolio.displayName)} · Credentials</title><link rel="canonical" href="${escapeHtml(portfolio.url)}"></head>
<body><main><h1>${escapeHtml(portfolio.displayName)}</h1>${bio}<ul>${portfolio.items.map(item).join('')}</ul></main></body>
</html>`;
}

export function renderPortfolioNotFound(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><main><h1>Page not found</h1></main></body></html>`;
}
