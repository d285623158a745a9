/**
 * The standard PDF fonts only encode WinAnsi (roughly Latin-1); pdf-lib throws on anything else.
 * Names arrive in any script, so text is reduced to what the font can print: accents are dropped
 * (Ő → O), a few letters without a decomposition and Cyrillic are transliterated, the rest becomes "?".
 */
const LATIN_FALLBACK: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  ĸ: 'k',
  Ŀ: 'L',
  ŀ: 'l',
  Ŋ: 'N',
  ŋ: 'n',
  Ŧ: 'T',
  ŧ: 't',
  Ə: 'E',
  ə: 'e',
  '\u2010': '-',
  '\u2011': '-',
  '\u2212': '-',
};

const CYRILLIC = 'абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґў';
const CYRILLIC_LATIN = [
  'a',
  'b',
  'v',
  'g',
  'd',
  'e',
  'e',
  'zh',
  'z',
  'i',
  'y',
  'k',
  'l',
  'm',
  'n',
  'o',
  'p',
  'r',
  's',
  't',
  'u',
  'f',
  'kh',
  'ts',
  'ch',
  'sh',
  'shch',
  '',
  'y',
  '',
  'e',
  'yu',
  'ya',
  'i',
  'yi',
  'ye',
  'g',
  'u',
];

export function printableText(text: string, supported: ReadonlySet<number>): string {
  return Array.from(text.normalize('NFC').replace(/\s+/g, ' '))
    .map((character) => printableCharacter(character, supported))
    .join('');
}

function printableCharacter(character: string, supported: ReadonlySet<number>): string {
  if (supported.has(character.codePointAt(0)!)) return character;
  if (/\p{M}/u.test(character)) return '';
  const base = character.normalize('NFKD').replace(/\p{M}/gu, '');
  if (base && base !== character && Array.from(base).every((c) => supported.has(c.codePointAt(0)!))) return base;
  if (LATIN_FALLBACK[character]) return LATIN_FALLBACK[character];
  return transliterateCyrillic(character) ?? '?';
}

function transliterateCyrillic(character: string): string | undefined {
  const lower = character.toLowerCase();
  const index = CYRILLIC.indexOf(lower);
  if (index < 0) return undefined;
  const latin = CYRILLIC_LATIN[index];
  return lower === character ? latin : latin.charAt(0).toUpperCase() + latin.slice(1);
}
