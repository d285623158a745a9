import { Layout, renderDocument } from './layout.js';
import type { Locale } from './locale.js';
import { messagesFor } from './messages.js';

const TEXTS = {
  certificate: ['certificateTitle', 'certificateText'],
  withdrawn: ['withdrawnTitle', 'withdrawnText'],
  page: ['pageTitle', 'pageText'],
} as const;

/**
 * 404 in the public pages' style: `certificate` under /verify, `page` for everything else; and the
 * 410 of a withdrawn certificate (`withdrawn`), which tells nothing about it but that.
 */
export function renderNotFoundPage(kind: keyof typeof TEXTS, locale: Locale): string {
  const m = messagesFor(locale).notFound;
  const [title, text] = TEXTS[kind].map((key) => m[key]);
  return renderDocument(
    <Layout locale={locale} meta={{ title, noindex: true }}>
      <header>
        <h1>{title}</h1>
      </header>
      <section>
        <p>{text}</p>
      </section>
    </Layout>,
  );
}
