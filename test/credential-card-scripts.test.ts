import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CARD_HEIGHT, CARD_WIDTH, renderCredentialCard } from '../src/pages/credential-card.js';
import type { VerificationFacts } from '../src/verification/verification-facts.js';

/**
 * The og:image card draws every script the PDFs draw. A character no loaded font has is drawn as
 * the same empty box (.notdef) whatever it is, so a name and the same letters reversed give the
 * same picture when the script's font is missing (words reversed one by one, spaces in place), and different pictures when it is drawn.
 */
const facts = (recipientName: string, institutionName = 'Universidade Federal', courseName = 'Data Engineering'): VerificationFacts => ({
  uuid: '01a1fbd9-0000-7000-8000-000000000001',
  state: 'valid',
  recipientName,
  institutionName,
  courseName,
  issuedAt: new Date('2026-11-25T12:00:00Z'),
  expiresAt: null,
  revokedAt: null,
  revocationReason: null,
  verificationUrl: 'https://credentials.test/verify/01a1fbd9-0000-7000-8000-000000000001',
  documents: [],
  anchor: null,
});
/** Each non-Latin word's letters backwards: the same boxes in the same places when the font is missing. */
const reversed = (text: string) =>
  text
    .split(' ')
    .map((word) => (/^[\x20-\x7e]*$/.test(word) ? word : [...word].reverse().join('')))
    .join(' ');
const size = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];

describe('the og:image card in every script', () => {
  it.each([
    ['Arabic', facts('فاطمة الزهراء', 'جامعة القاهرة', 'هندسة البيانات'), 'credential-card-arabic'],
    ['Hebrew', facts('שרה לוי'), null],
    ['Devanagari', facts('कमल जतन'), null],
    ['Japanese', facts('山田 さくら', '東京大学'), 'credential-card-japanese'],
    ['Korean', facts('김민준'), null],
  ])(
    'draws %s with its own glyphs, not empty boxes',
    async (_script, card, picture) => {
      const backwards = {
        ...card,
        recipientName: reversed(card.recipientName),
        institutionName: reversed(card.institutionName),
        courseName: reversed(card.courseName),
      };
      const [drawn, other] = await Promise.all([renderCredentialCard(card, 'en'), renderCredentialCard(backwards, 'en')]);
      expect(size(drawn)).toEqual([CARD_WIDTH, CARD_HEIGHT]);
      expect(drawn.equals(other)).toBe(false);
      if (picture) {
        // For a person to look at (docs/credential-card-arabic.png is one).
        await mkdir(join(process.cwd(), 'test-artifacts'), { recursive: true });
        await writeFile(join(process.cwd(), 'test-artifacts', `${picture}.png`), drawn);
      }
    },
    60_000,
  );
});
