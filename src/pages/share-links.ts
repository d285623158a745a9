import type { VerificationFacts } from '../verification/verification-facts.js';
import { linkedInAddToProfileUrl } from './linkedin.js';
import type { Locale } from './locale.js';
import { messagesFor } from './messages.js';

/** Where each share button leads; plain links, no third-party script on the page. */
export const SHARE_TARGETS = ['linkedin', 'x', 'facebook', 'email', 'linkedin-profile'] as const;
export type ShareTarget = (typeof SHARE_TARGETS)[number];

export const NETWORK_NAMES: Record<Exclude<ShareTarget, 'email' | 'linkedin-profile'>, string> = { linkedin: 'LinkedIn', x: 'X', facebook: 'Facebook' };

export const isShareTarget = (value: string): value is ShareTarget => (SHARE_TARGETS as readonly string[]).includes(value);

/** The network's own share address for the page, prefilled in the reader's language. */
export function shareDestination(target: ShareTarget, facts: VerificationFacts, locale: Locale): string {
  const m = messagesFor(locale).verification;
  const url = facts.verificationUrl;
  const text = m.shareText(facts.courseName, facts.institutionName);
  switch (target) {
    case 'linkedin':
      return `https://www.linkedin.com/sharing/share-offsite/?${new URLSearchParams({ url })}`;
    case 'x':
      return `https://x.com/intent/post?${new URLSearchParams({ text, url })}`;
    case 'facebook':
      return `https://www.facebook.com/sharer/sharer.php?${new URLSearchParams({ u: url })}`;
    case 'email':
      return `mailto:?subject=${encodeURIComponent(m.shareSubject(facts.courseName))}&body=${encodeURIComponent(`${text}\n${url}`)}`;
    case 'linkedin-profile':
      return linkedInAddToProfileUrl(facts);
  }
}

/** This service's own page of a certificate (its `verificationUrl` may be an institution's address instead). */
export const ownPageUrl = (publicBaseUrl: string, uuid: string) => `${publicBaseUrl}/verify/${uuid}`;

/** The page's counting redirect to a share destination (GET /verify/{uuid}/share/{target}). */
export const shareRedirectUrl = (pageUrl: string, target: ShareTarget, locale: Locale) => `${pageUrl}/share/${target}?lang=${locale}`;

/** The og:image card of the page, in its language. */
export const cardUrl = (pageUrl: string, locale: Locale) => `${pageUrl}/card.png?lang=${locale}`;

/** The HTML another site pastes to show the credential: the card, linked to the page. */
export function embedSnippet(facts: VerificationFacts, pageUrl: string, locale: Locale): string {
  const alt = messagesFor(locale).verification.cardAlt(facts.courseName, facts.recipientName);
  const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<a href="${attr(facts.verificationUrl)}"><img src="${attr(cardUrl(pageUrl, locale))}" alt="${attr(alt)}" width="600" height="315"></a>`;
}
