import { LOCALES, negotiateLocale, localeOf } from '../src/i18n/locales.js';
import { messagesFor } from '../src/i18n/messages.js';
import { issuedMessage } from '../src/certificates/issued-message.js';
import { renderTranscript } from '../src/documents/index.js';
import { pageTexts, transcriptData } from './fixtures/documents.js';

/** Every leaf of a catalogue by its path: strings, and functions with their arity. */
function leaves(value: unknown, path = ''): Map<string, string> {
  const found = new Map<string, string>();
  if (typeof value === 'function') found.set(path, `function/${value.length}`);
  else if (typeof value === 'string') found.set(path, 'string');
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) for (const [leaf, kind] of leaves(inner, `${path}.${key}`)) found.set(leaf, kind);
  } else found.set(path, typeof value);
  return found;
}

const SAMPLE_ARGUMENTS = ['Course', 'Recipient', 'Institution'];

describe('message catalogues', () => {
  const english = leaves(messagesFor('en'));

  it.each(LOCALES.filter((locale) => locale !== 'en'))('%s has every key of the English catalogue, of the same kind, and no other', (locale) => {
    expect(Object.fromEntries(leaves(messagesFor(locale)))).toEqual(Object.fromEntries(english));
  });

  it.each([...LOCALES])('%s says something for every key (no empty text)', (locale) => {
    const walk = (value: unknown, path: string): string[] => {
      if (typeof value === 'string') return value.trim() === '' ? [path] : [];
      if (typeof value === 'function') {
        const text = (value as (...args: unknown[]) => unknown)(...SAMPLE_ARGUMENTS.slice(0, value.length).map((arg, i) => (i === 0 ? arg : arg)));
        return typeof text === 'string' && text.trim() !== '' ? [] : [path];
      }
      return Object.entries(value as object).flatMap(([key, inner]) => walk(inner, `${path}.${key}`));
    };
    expect(walk(messagesFor(locale), locale)).toEqual([]);
  });

  it('are different languages, not copies of the English text', () => {
    for (const locale of ['pt-BR', 'es'] as const) {
      expect(messagesFor(locale).verification.doesNotExpire).not.toBe(messagesFor('en').verification.doesNotExpire);
      expect(messagesFor(locale).transcript.title).not.toBe(messagesFor('en').transcript.title);
      expect(messagesFor(locale).email.viewAt).not.toBe(messagesFor('en').email.viewAt);
    }
  });
});

describe('choosing a language', () => {
  it('maps every Portuguese to Brazilian Portuguese and every Spanish to Spanish', () => {
    expect(['pt', 'pt-PT', 'pt-br', 'PT_BR', 'es', 'es-MX', 'es-419', 'en-GB', 'de', '', undefined].map((tag) => localeOf(tag))).toEqual([
      'pt-BR',
      'pt-BR',
      'pt-BR',
      'pt-BR',
      'es',
      'es',
      'es',
      'en',
      null,
      null,
      null,
    ]);
  });

  it('honours q-values, the order of equal ones, q=0 and the fallback', () => {
    expect(negotiateLocale('de;q=1, pt-PT;q=0.8, en;q=0.5')).toBe('pt-BR');
    expect(negotiateLocale('en;q=0.4, es-AR;q=0.9')).toBe('es');
    expect(negotiateLocale('es, pt')).toBe('es');
    expect(negotiateLocale('pt;q=0, es;q=0.1')).toBe('es');
    expect(negotiateLocale('de, fr')).toBe('en');
    expect(negotiateLocale('*')).toBe('en');
    expect(negotiateLocale('es;q=abc, pt;q=0.2')).toBe('pt-BR');
    expect(negotiateLocale(undefined)).toBe('en');
  });
});

describe('documents in the certificate’s language', () => {
  it('the transcript prints its labels in Spanish and Portuguese', async () => {
    const spanish = (await pageTexts(await renderTranscript({ ...transcriptData(3), locale: 'es' }))).join(' ');
    for (const text of [
      'Certificado analítico',
      'Estudiante Maria da Silva',
      'Calificación final 8.50 (escala de 0 a 10)',
      'Código Módulo Horas Créditos',
      'Total del curso',
      'Página 1 de 1',
    ]) {
      expect(spanish).toContain(text);
    }
    expect(spanish).not.toContain('Academic transcript');
    const portuguese = (await pageTexts(await renderTranscript({ ...transcriptData(3), locale: 'pt-BR' }))).join(' ');
    expect(portuguese).toContain('Histórico escolar');
    expect(portuguese).toContain('Nota final 8.50 (escala de 0 a 10)');
  });

  it('the issued e-mail speaks the language it is given', async () => {
    const parts = {
      certificate: { uuid: '01a1fbd9-0000-7000-8000-000000000001' },
      student: { name: 'Lucía Fernández', socialName: null, email: 'lucia@example.org' },
      course: { name: 'Data Engineering' },
      institution: { name: 'Universidad Abierta', isBadgesEnabled: false, badgeImageUuid: null },
      url: 'http://credentials.test/verify/01a1fbd9-0000-7000-8000-000000000001',
      publicBaseUrl: 'http://credentials.test',
    } as never as Parameters<typeof issuedMessage>[0];
    const spanish = issuedMessage({ ...parts, locale: 'es' });
    expect(spanish.subject).toBe('Su certificado de Data Engineering emitido por Universidad Abierta');
    expect(spanish.textBody).toContain('Universidad Abierta emitió su certificado de Data Engineering.');
    expect(spanish.htmlBody).toContain('Ver y verificar su certificado');
    expect(issuedMessage(parts).subject).toBe('Your certificate for Data Engineering from Universidad Abierta');
    expect(issuedMessage({ ...parts, locale: 'pt-BR' }).textBody).toContain('Olá, Lucía Fernández,');
  });
});
