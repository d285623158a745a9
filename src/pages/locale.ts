import type { Request } from 'express';

/** The languages the public pages speak; the first is the fallback. */
export const LOCALES = ['en', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];

/** `?lang=` as a person would type it: `pt`, `pt-br`, `PT_BR` and `en-GB` all count. */
function fromQuery(value: unknown): Locale | null {
  if (typeof value !== 'string') return null;
  const language = value.toLowerCase().split(/[-_]/)[0];
  if (language === 'pt') return 'pt-BR';
  if (language === 'en') return 'en';
  return null;
}

export interface LocaleChoice {
  locale: Locale;
  /** Chosen by `?lang=`: links and forms on the page carry it on. */
  explicit: boolean;
}

/** `?lang=` overrides `Accept-Language`; Express's negotiation reads `pt` and `pt-BR` (with q-values) as Brazilian Portuguese. */
export function chooseLocale(req: Request): LocaleChoice {
  const asked = fromQuery(req.query.lang);
  if (asked) return { locale: asked, explicit: true };
  const negotiated = req.acceptsLanguages(...LOCALES);
  return { locale: LOCALES.find((locale) => locale === negotiated) ?? 'en', explicit: false };
}

/** Long dates in the reader's language, in UTC so every reader sees the day the record holds. */
export function formatDate(date: Date, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/** A date and time in the reader's language, in UTC (said so), for moments such as a block's time. */
export function formatDateTime(date: Date, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(date);
}
