import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import { LOCALES, type Locale } from './locale.js';
import { messagesFor } from './messages.js';
import { PAGE_STYLE } from './page-style.js';

/** What a shared link shows as a card (OpenGraph, Twitter) and where the page really lives. */
export interface PageMeta {
  title: string;
  description?: string;
  /** Absolute URL; also `og:url`. */
  canonical?: string;
  ogType?: 'website' | 'profile';
  /** Verification pages carry a person's name: shared by link, not found by search engines. */
  noindex?: boolean;
}

const OG_LOCALE: Record<Locale, string> = { en: 'en_US', 'pt-BR': 'pt_BR' };

function SocialCard({ meta, locale }: { meta: PageMeta; locale: Locale }) {
  const site = messagesFor(locale).siteName;
  return (
    <>
      <meta property="og:type" content={meta.ogType ?? 'website'} />
      <meta property="og:site_name" content={site} />
      <meta property="og:title" content={meta.title} />
      {meta.description && <meta property="og:description" content={meta.description} />}
      {meta.canonical && <meta property="og:url" content={meta.canonical} />}
      <meta property="og:locale" content={OG_LOCALE[locale]} />
      <meta name="twitter:card" content="summary" />
      <meta name="twitter:title" content={meta.title} />
      {meta.description && <meta name="twitter:description" content={meta.description} />}
    </>
  );
}

/** The same page in each language, by `?lang=` on the current address. */
function LanguageSwitch({ locale }: { locale: Locale }) {
  return (
    <nav aria-label={messagesFor(locale).languages}>
      {LOCALES.map((other) => (
        <a href={`?lang=${other}`} lang={other} hrefLang={other} aria-current={other === locale ? 'page' : undefined}>
          {messagesFor(other).languageName}
        </a>
      ))}
    </nav>
  );
}

/** The shared frame of every public page: head with meta tags and the one stylesheet, a card, a footer. */
export function Layout({ locale, meta, children }: { locale: Locale; meta: PageMeta; children: ComponentChildren }) {
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{meta.title}</title>
        {meta.description && <meta name="description" content={meta.description} />}
        {meta.noindex && <meta name="robots" content="noindex" />}
        {meta.canonical && <link rel="canonical" href={meta.canonical} />}
        <SocialCard meta={meta} locale={locale} />
        <style dangerouslySetInnerHTML={{ __html: PAGE_STYLE }} />
      </head>
      <body>
        <main>{children}</main>
        <footer class="site">
          <span>{messagesFor(locale).siteName}</span>
          <LanguageSwitch locale={locale} />
        </footer>
      </body>
    </html>
  );
}

/** A whole HTML document from a page element; preact escapes every text and attribute value. */
export function renderDocument(page: ComponentChildren): string {
  return `<!doctype html>\n${render(<>{page}</>)}`;
}
