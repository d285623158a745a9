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
  /** The link's picture (og:image), absolute. */
  image?: { url: string; width: number; height: number; alt: string };
  /** oEmbed discovery: the JSON endpoint describing this page. */
  oembed?: { url: string; title: string };
}

const OG_LOCALE: Record<Locale, string> = { en: 'en_US', 'pt-BR': 'pt_BR', es: 'es_ES' };

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
      {meta.image && (
        <>
          <meta property="og:image" content={meta.image.url} />
          <meta property="og:image:type" content="image/png" />
          <meta property="og:image:width" content={String(meta.image.width)} />
          <meta property="og:image:height" content={String(meta.image.height)} />
          <meta property="og:image:alt" content={meta.image.alt} />
          <meta name="twitter:image" content={meta.image.url} />
          <meta name="twitter:image:alt" content={meta.image.alt} />
        </>
      )}
      <meta name="twitter:card" content={meta.image ? 'summary_large_image' : 'summary'} />
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
        {meta.oembed && <link rel="alternate" type="application/json+oembed" href={meta.oembed.url} title={meta.oembed.title} />}
        <link rel="icon" href="/favicon.ico" sizes="any" />
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
