import type { Response } from 'express';
import { PUBLIC_PAGE_POLICY } from '../http/security-headers.js';
import type { Locale } from './locale.js';

/**
 * Sends a rendered public page with what every one of them needs: the page CSP (on top of the
 * baseline headers every response gets), its language, and caches told that the language
 * followed Accept-Language.
 */
export function sendPage(res: Response, locale: Locale, html: string, status = 200): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': PUBLIC_PAGE_POLICY, 'Content-Language': locale, 'Cache-Control': 'no-cache' })
    .vary('Accept-Language')
    .type('html')
    .send(html);
}
