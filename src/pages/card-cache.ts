import { createHash } from 'node:crypto';
import type { VerificationFacts } from '../verification/verification-facts.js';
import { renderCredentialCard } from './credential-card.js';
import type { Locale } from './locale.js';

const MAX_CARDS = 256;

// What the card shows, and nothing else: any change of it (a revocation, a new name) draws a new card.
const cardKey = (facts: VerificationFacts, locale: Locale) =>
  createHash('sha256')
    .update(JSON.stringify([facts.uuid, locale, facts.state, facts.institutionName, facts.courseName, facts.recipientName, facts.issuedAt.toISOString()]))
    .digest('base64url');

/**
 * The og:image cards drawn by this process, most recently used kept: a link shared widely is fetched
 * by every network's previewer, and drawing costs milliseconds of this thread.
 */
export class CardCache {
  private readonly cards = new Map<string, Promise<Buffer>>();

  /** The PNG and its ETag (the key: the same facts always draw the same bytes); requests for a card being drawn share it. */
  async card(facts: VerificationFacts, locale: Locale): Promise<{ png: Buffer; etag: string }> {
    const key = cardKey(facts, locale);
    let png = this.cards.get(key);
    if (png) this.cards.delete(key);
    else png = renderCredentialCard(facts, locale);
    this.cards.set(key, png);
    if (this.cards.size > MAX_CARDS) this.cards.delete(this.cards.keys().next().value!);
    try {
      return { png: await png, etag: `"${key}"` };
    } catch (error) {
      this.cards.delete(key);
      throw error;
    }
  }
}
