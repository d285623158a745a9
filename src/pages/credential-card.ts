import { createRequire } from 'node:module';
import { renderAsync } from '@resvg/resvg-js';
import type { VerificationFacts } from '../verification/verification-facts.js';
import { formatDate, type Locale } from './locale.js';
import { messagesFor } from './messages.js';

/** The size social networks ask of a link's picture (og:image): 1.91 to 1. */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

const resolve = createRequire(import.meta.url).resolve;
const noto = (family: string, file: string) =>
  [400, 700].map((weight) =>
    resolve(`@expo-google-fonts/${family}/${weight}${weight === 400 ? 'Regular' : 'Bold'}/${file}_${weight}${weight === 400 ? 'Regular' : 'Bold'}.ttf`),
  );

/**
 * The card draws with these and never with the system's fonts, so it looks the same on every server:
 * Noto Sans (Latin, Greek, Cyrillic, Vietnamese), then a family for each script it lacks, read only
 * when the card's text has that script (the Han/kana and Hangul files are 10 and 6 MB a weight).
 * resvg shapes (rustybuzz) and orders right-to-left text itself, falling back along this list.
 */
const SCRIPT_FONTS: readonly { family: string; script: RegExp; files: () => string[] }[] = [
  { family: 'Noto Sans Arabic', script: /\p{Script=Arabic}/u, files: () => noto('noto-sans-arabic', 'NotoSansArabic') },
  { family: 'Noto Sans Hebrew', script: /\p{Script=Hebrew}/u, files: () => noto('noto-sans-hebrew', 'NotoSansHebrew') },
  { family: 'Noto Sans Devanagari', script: /\p{Script=Devanagari}/u, files: () => noto('noto-sans-devanagari', 'NotoSansDevanagari') },
  {
    family: 'Noto Sans SC',
    script: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u,
    files: () => noto('noto-sans-sc', 'NotoSansSC'),
  },
  { family: 'Noto Sans KR', script: /\p{Script=Hangul}/u, files: () => noto('noto-sans-kr', 'NotoSansKR') },
  { family: 'Noto Emoji', script: /\p{Extended_Pictographic}/u, files: () => noto('noto-emoji', 'NotoEmoji') },
];
const PRIMARY = noto('noto-sans', 'NotoSans');

/**
 * The font files a card with this text needs, and the font-family list of one of its lines: that
 * line's scripts first, then Noto Sans. Their own families draw a line's Latin too (each of these
 * files has it), because resvg's fallback for a character the chosen family lacks takes the first
 * loaded face that has it, whatever its weight: a bold Arabic title would come out regular.
 */
export function cardFonts(text: string): { files: string[]; families: (line: string) => string } {
  const needed = SCRIPT_FONTS.filter((entry) => entry.script.test(text));
  return {
    files: [...PRIMARY, ...needed.flatMap((entry) => entry.files())],
    families: (line) =>
      [...needed.filter((entry) => entry.script.test(line)).map((entry) => entry.family), 'Noto Sans'].map((family) => `'${family}'`).join(', '),
  };
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Han, kana, Hangul and full-width forms take about two Latin letters' width. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
const units = (text: string) => [...text].reduce((sum, c) => sum + (WIDE.test(c) ? 2 : 1), 0);

/** The longest start of `text` of at most `max` units. */
function cut(text: string, max: number): string {
  let out = '';
  for (const c of text) {
    if (units(out + c) > max) break;
    out += c;
  }
  return out;
}

/**
 * Lines of at most `max` units (a Noto Sans average letter; see WIDE), at most `lines` of them, the
 * last cut with an ellipsis. Words break at spaces, and between any two wide characters (which is
 * how Chinese and Japanese break).
 */
function wrapText(text: string, max: number, lines: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let line = '';
  for (const word of words) {
    let rest = word;
    let glue = line ? ' ' : '';
    while (rest) {
      if (units(line + glue + rest) <= max) {
        line += glue + rest;
        break;
      }
      const head = WIDE.test(rest) ? cut(rest, max - units(line + glue)) : '';
      if (head) {
        line += glue + head;
        rest = rest.slice(head.length);
      } else if (!line) {
        line = `${cut(rest, max - 1)}…`;
        break;
      }
      out.push(line);
      line = '';
      glue = '';
    }
  }
  if (line) out.push(line);
  if (out.length > lines) {
    const kept = out.slice(0, lines);
    kept[lines - 1] = `${cut(kept[lines - 1]!, max - 1).trimEnd()}…`;
    return kept;
  }
  return out;
}

const TONE = { valid: ['#e6f4ea', '#14532d'], revoked: ['#fdeaea', '#8f1717'], expired: ['#fff4e0', '#6e4700'] } as const;

/** Every name the card draws, for choosing its fonts. */
const cardText = (facts: VerificationFacts) => `${facts.institutionName} ${facts.courseName} ${facts.recipientName}`;

/** The card as SVG: institution, course, recipient, issue date and the certificate's state, in the reader's language. */
export function credentialCardSvg(facts: VerificationFacts, locale: Locale): string {
  const messages = messagesFor(locale);
  const m = messages.verification;
  const [background, ink] = TONE[facts.state];
  const course = wrapText(facts.courseName, 30, 2);
  const { families } = cardFonts(cardText(facts));
  const text = (x: number, y: number, size: number, weight: number, fill: string, content: string) =>
    `<text x="${x}" y="${y}" font-family="${families(content)}" font-size="${size}" font-weight="${weight}" fill="${fill}">${escapeXml(content)}</text>`;
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
    font: { fontFiles: cardFonts(cardText(facts)).files, loadSystemFonts: false, defaultFontFamily: 'Noto Sans' },
    fitTo: { mode: 'width', value: CARD_WIDTH },
  });
  return image.asPng();
}
