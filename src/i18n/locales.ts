/** The languages the service speaks (pages, e-mails, transcripts); the first is the fallback. */
export const LOCALES = ['en', 'pt-BR', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

/**
 * The supported language a BCP 47 tag asks for, by its primary subtag: every Portuguese (pt, pt-PT,
 * pt-BR) reads the Brazilian catalogue, every Spanish (es, es-MX, es-419) the Spanish one; null for others.
 */
export function localeOf(tag: string | null | undefined): Locale | null {
  if (typeof tag !== 'string') return null;
  const language = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (language === 'pt') return 'pt-BR';
  if (language === 'es') return 'es';
  if (language === 'en') return 'en';
  return null;
}

const MAX_RANGES = 32;

/**
 * The best supported language of an Accept-Language header (RFC 9110 §12.5.4): ranges by q-value,
 * the header's order breaking ties; `q=0` refuses a language; `*` or nothing supported → the fallback.
 */
export function negotiateLocale(header: string | undefined): Locale {
  if (!header) return DEFAULT_LOCALE;
  const ranges = header
    .split(',')
    .slice(0, MAX_RANGES)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((piece) => piece.trim());
      const q = params.find((param) => /^q=/i.test(param));
      const quality = q ? Number(q.slice(2)) : 1;
      return { tag, quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((range) => range.quality > 0 && range.tag !== '')
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const range of ranges) {
    const locale = localeOf(range.tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}
