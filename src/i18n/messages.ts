import type { Locale } from './locales.js';
import { en, type Messages } from './messages-en.js';
import { es } from './messages-es.js';
import { ptBR } from './messages-pt-br.js';

export type { Messages };

const CATALOGUES: Record<Locale, Messages> = { en, 'pt-BR': ptBR, es };

/** Every sentence of pages, e-mail and transcript in one language; the types make each catalogue say them all. */
export const messagesFor = (locale: Locale): Messages => CATALOGUES[locale];
