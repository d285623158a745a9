import { createHash } from 'node:crypto';
import { escapeHtml } from '../escape-html.js';
import type { VerificationFacts } from './verification-facts.js';

const day = (date: Date) => date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

const STATE = {
  valid: { label: 'Valid', text: 'This certificate was issued by the institution below and is valid.' },
  revoked: { label: 'Revoked', text: 'The institution revoked this certificate. It is no longer valid.' },
  expired: { label: 'Expired', text: 'This certificate was valid until its expiry date.' },
} as const;

// One constant stylesheet for every page, so its hash can stand in the CSP instead of 'unsafe-inline'.
const STYLE = `
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2330; }
  main { max-width: 42rem; margin: 3rem auto; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.08); overflow: hidden; }
  header { padding: 2rem 2rem 1.5rem; border-bottom: 1px solid #e7e9ee; }
  .issuer { text-transform: uppercase; letter-spacing: .08em; font-size: .8rem; color: #5b6475; margin: 0 0 .75rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
  .recipient { font-size: 1.15rem; margin: 0; }
  .state { margin: 1.5rem 2rem; padding: 1rem 1.25rem; border-radius: 8px; }
  .state-valid { background: #e6f4ea; color: #17663a; }
  .state-revoked { background: #fdeaea; color: #a61b1b; }
  .state-expired { background: #fff4e0; color: #8a5a00; }
  .state strong { font-size: 1.1rem; display: block; }
  dl { margin: 0 2rem 1.5rem; }
  .row { display: flex; gap: 1rem; padding: .5rem 0; border-bottom: 1px solid #f0f1f4; }
  dt { width: 11rem; flex: none; color: #5b6475; }
  dd { margin: 0; }
  section { padding: 0 2rem 2rem; }
  h2 { font-size: 1rem; margin: 0 0 .5rem; }
  ul { margin: 0; padding-left: 1.2rem; }
  a { color: #1f4fd1; }
  footer { padding: 1rem 2rem; background: #fafbfc; color: #5b6475; font-size: .85rem; word-break: break-all; }
`;

/** The CSP source that admits the page's inline stylesheet and nothing else. */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function row(label: string, value: string | null | undefined): string {
  return value ? `<div class="row"><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>` : '';
}

/** Open Badges (src/badges): the baked badge download, when the institution issues badges. */
export interface BadgePageData {
  badgeDownloadUrl: string | null;
}

function badgeSection({ badgeDownloadUrl }: BadgePageData): string {
  if (!badgeDownloadUrl) return '';
  return `<section><h2>Open Badge</h2><p><a href="${escapeHtml(badgeDownloadUrl)}" download>Download the Open Badge</a>: the badge image with this credential baked in, for badge backpacks and profiles.</p></section>`;
}

/** The public verification page: server-rendered, self-contained, readable without JavaScript. */
export function renderVerificationPage(facts: VerificationFacts, badge: BadgePageData = { badgeDownloadUrl: null }): string {
  const state = STATE[facts.state];
  const documents = facts.documents
    .map((doc) => `<li><a href="${escapeHtml(doc.url)}">${doc.type === 'certificate' ? 'Signed certificate' : 'Signed transcript'}</a> <span>(PDF)</span></li>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(facts.courseName)} · ${escapeHtml(facts.recipientName)} · Certificate verification</title>
<meta name="robots" content="noindex">
<style>${STYLE}</style>
</head>
<body>
<main>
  <header>
    <p class="issuer">${escapeHtml(facts.institutionName)}</p>
    <h1>${escapeHtml(facts.courseName)}</h1>
    <p class="recipient">Awarded to <strong>${escapeHtml(facts.recipientName)}</strong></p>
  </header>
  <div class="state state-${facts.state}" role="status"><strong>${state.label}</strong>${escapeHtml(state.text)}</div>
  <dl>
    ${row('Recipient', facts.recipientName)}
    ${row('Course', facts.courseName)}
    ${row('Issued by', facts.institutionName)}
    ${row('Issued on', day(facts.issuedAt))}
    ${row(facts.state === 'expired' ? 'Expired on' : 'Valid until', facts.expiresAt ? day(facts.expiresAt) : null)}
    ${row('Revoked on', facts.revokedAt ? day(facts.revokedAt) : null)}
    ${row('Reason', facts.revocationReason)}
    ${row('Certificate ID', facts.uuid)}
  </dl>
  ${documents ? `<section><h2>Documents</h2><ul>${documents}</ul></section>` : ''}
  ${badgeSection(badge)}
  <footer>The PDFs carry a digital signature of the institution. Verify a copy you received by uploading it to
  <code>POST /api/v1/verify</code>. This page: ${escapeHtml(facts.verificationUrl)}</footer>
</main>
</body>
</html>
`;
}

/** The page for an identifier that names no issued certificate, in the same style (and CSP). */
export function renderNotFoundPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Certificate not found</title>
<meta name="robots" content="noindex">
<style>${STYLE}</style>
</head>
<body>
<main>
  <header><h1>Certificate not found</h1></header>
  <section><p>No issued certificate has this identifier. Check the link you were given.</p></section>
</main>
</body>
</html>`;
}
