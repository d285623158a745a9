import type { Request } from 'express';
import { localeOf, negotiateLocale, type Locale } from '../i18n/locales.js';

export { LOCALES, type Locale } from '../i18n/locales.js';

export interface LocaleChoice {
  locale: Locale;
  /** Chosen by `?lang=`: links and forms on the page carry it on. */
  explicit: boolean;
}

/** `?lang=` (`pt`, `pt-br`, `es-MX`, `en-GB` as a person would type it) overrides `Accept-Language` and its q-values. */
export function chooseLocale(req: Request): LocaleChoice {
  const asked = typeof req.query.lang === 'string' ? localeOf(req.query.lang) : null;
  if (asked) return { locale: asked, explicit: true };
  return { locale: negotiateLocale(req.get('accept-language')), explicit: false };
}

/** Long dates in the reader's language, in UTC so every reader sees the day the record holds. */
export function formatDate(date: Date, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/** A date and time in the reader's language, in UTC (said so), for moments such as a block's time. */
export function formatDateTime(date: Date, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(date);
}
