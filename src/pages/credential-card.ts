import { createRequire } from 'node:module';
import { renderAsync } from '@resvg/resvg-js';
import type { VerificationFacts } from '../verification/verification-facts.js';
import { formatDate, type Locale } from './locale.js';
import { messagesFor } from './messages.js';

/** The size social networks ask of a link's picture (og:image): 1.91 to 1. */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

const resolve = createRequire(import.meta.url).resolve;
// The card draws with these and never with the system's fonts, so it looks the same on every server.
const CARD_FONTS = ['@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf', '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf'];

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Lines of at most `max` characters (a Noto Sans average), at most `lines` of them, the last cut with an ellipsis. */
function wrapText(text: string, max: number, lines: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= max) line = next;
    else {
      if (line) out.push(line);
      line = word.length > max ? `${word.slice(0, max - 1)}…` : word;
    }
  }
  if (line) out.push(line);
  if (out.length > lines) {
    const kept = out.slice(0, lines);
    kept[lines - 1] = `${kept[lines - 1]!.slice(0, max - 1).trimEnd()}…`;
    return kept;
  }
  return out;
}

const TONE = { valid: ['#e6f4ea', '#14532d'], revoked: ['#fdeaea', '#8f1717'], expired: ['#fff4e0', '#6e4700'] } as const;

/** The card as SVG: institution, course, recipient, issue date and the certificate's state, in the reader's language. */
export function credentialCardSvg(facts: VerificationFacts, locale: Locale): string {
  const messages = messagesFor(locale);
  const m = messages.verification;
  const [background, ink] = TONE[facts.state];
  const course = wrapText(facts.courseName, 30, 2);
  const text = (x: number, y: number, size: number, weight: number, fill: string, content: string) =>
    `<text x="${x}" y="${y}" font-family="Noto Sans" font-size="${size}" font-weight="${weight}" fill="${fill}">${escapeXml(content)}</text>`;
  const state = messages.state[facts.state].label;
  const stateWidth = 48 + state.length * 17;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}">`,
    `<rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="#f4f5f7"/>`,
    `<rect x="40" y="40" width="${CARD_WIDTH - 80}" height="${CARD_HEIGHT - 80}" rx="24" fill="#ffffff" stroke="#e7e9ee" stroke-width="2"/>`,
    `<rect x="40" y="40" width="${CARD_WIDTH - 80}" height="14" rx="7" fill="#1f4fd1"/>`,
    text(100, 140, 28, 700, '#545d6e', wrapText(facts.institutionName.toUpperCase(), 52, 1)[0] ?? ''),
    ...course.map((line, i) => text(100, 230 + i * 72, 60, 700, '#1d2330', line)),
    text(100, 230 + course.length * 72 + 30, 32, 400, '#3a4252', `${m.awardedTo} ${wrapText(facts.recipientName, 44, 1)[0] ?? ''}`),
    text(100, 520, 26, 400, '#545d6e', `${m.issuedOn} ${formatDate(facts.issuedAt, locale)}`),
    `<rect x="${CARD_WIDTH - 100 - stateWidth}" y="470" width="${stateWidth}" height="64" rx="32" fill="${background}" stroke="${ink}" stroke-width="2"/>`,
    text(CARD_WIDTH - 100 - stateWidth + 24, 513, 30, 700, ink, state),
    text(100, 565, 22, 400, '#545d6e', `${m.cardHeading} · ${messages.siteName}`),
    '</svg>',
  ].join('');
}

/** The card as PNG, drawn without a browser (resvg, ~20 ms) on libuv's threads, not the event loop; 1200 × 630. */
export async function renderCredentialCard(facts: VerificationFacts, locale: Locale): Promise<Buffer> {
  const image = await renderAsync(credentialCardSvg(facts, locale), {
    font: { fontFiles: CARD_FONTS.map((file) => resolve(file)), loadSystemFonts: false, defaultFontFamily: 'Noto Sans' },
    fitTo: { mode: 'width', value: CARD_WIDTH },
  });
  return image.asPng();
}
