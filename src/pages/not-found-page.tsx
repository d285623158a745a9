import { Layout, renderDocument } from './layout.js';
import type { Locale } from './locale.js';
import { messagesFor } from './messages.js';

/** 404 in the public pages' style: `certificate` under /verify, `page` for everything else. */
export function renderNotFoundPage(kind: 'certificate' | 'page', locale: Locale): string {
  const m = messagesFor(locale).notFound;
  const [title, text] = kind === 'certificate' ? [m.certificateTitle, m.certificateText] : [m.pageTitle, m.pageText];
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
