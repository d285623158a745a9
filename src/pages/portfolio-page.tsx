import { Layout, renderDocument } from './layout.js';
import { formatDate, type Locale } from './locale.js';
import { messagesFor } from './messages.js';
import { STATE_TONE, StatusBadge } from './parts.js';

/** One credential on a public portfolio, as the portfolio loader (src/portfolios) hands it over. */
export interface PortfolioItemView {
  certificateUuid: string;
  institutionName: string;
  courseName: string;
  issuedAt: Date;
  status: 'issued' | 'revoked' | 'expired';
  expiresAt: Date | null;
  revokedAt: Date | null;
  verificationUrl: string;
  badgeImageUrl: string | null;
}

/** A public portfolio page: whose, and the visible items in their order. */
export interface PortfolioView {
  tenantSlug: string;
  slug: string;
  /** The page's own address: canonical link and shared cards. */
  url: string;
  displayName: string;
  bio: string | null;
  updatedAt: Date;
  items: PortfolioItemView[];
}

const stateOf = (status: PortfolioItemView['status']) => (status === 'issued' ? 'valid' : status);

function PortfolioItem({ item, locale }: { item: PortfolioItemView; locale: Locale }) {
  const messages = messagesFor(locale);
  const m = messages.portfolio;
  const state = stateOf(item.status);
  const when =
    item.status === 'revoked' && item.revokedAt
      ? `${m.revokedOn} ${formatDate(item.revokedAt, locale)}`
      : item.expiresAt
        ? `${item.status === 'expired' ? m.expiredOn : m.validUntil} ${formatDate(item.expiresAt, locale)}`
        : null;
  return (
    <li class={`item item-${state}`}>
      {item.badgeImageUrl && <img src={item.badgeImageUrl} alt={m.badgeAlt(item.courseName)} width={64} height={64} />}
      <div>
        <h3>{item.courseName}</h3>
        <p class="meta">
          {m.issuedBy} {item.institutionName} · {m.issuedOn} {formatDate(item.issuedAt, locale)}
        </p>
        <p>
          <StatusBadge tone={STATE_TONE[state]}>{messages.state[state].label}</StatusBadge>
          {when && <span class="meta"> {when}</span>}
        </p>
        <p>
          <a href={item.verificationUrl}>{m.verify(item.courseName)}</a>
        </p>
      </div>
    </li>
  );
}

/** GET /p/{tenant}/{slug}: the student's name, bio and credentials, each linking to its verification page. */
export function renderPortfolioPage(view: PortfolioView, locale: Locale): string {
  const m = messagesFor(locale).portfolio;
  const meta = {
    title: m.title(view.displayName),
    description: m.description(view.displayName, view.items.length),
    canonical: view.url,
    ogType: 'profile' as const,
  };
  return renderDocument(
    <Layout locale={locale} meta={meta}>
      <header>
        <h1>{view.displayName}</h1>
        {view.bio && <p class="bio">{view.bio}</p>}
      </header>
      <section aria-labelledby="credentials-heading" class="credentials">
        <h2 id="credentials-heading">{m.credentials}</h2>
        {view.items.length === 0 ? (
          <p>{m.empty}</p>
        ) : (
          <ul class="items">
            {view.items.map((item) => (
              <PortfolioItem item={item} locale={locale} />
            ))}
          </ul>
        )}
        <p class="hint">
          {m.updatedOn} {formatDate(view.updatedAt, locale)}
        </p>
      </section>
    </Layout>,
  );
}
