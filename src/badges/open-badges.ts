import { createHash } from 'node:crypto';
import { formatTimestamp } from '../timestamps.js';
import type { BadgeUrls, BakedImageType } from './badge-urls.js';

/**
 * Open Badges 2.0 documents (1EdTech, "Open Badges Vocabulary") built from plain facts. Pure: the
 * hosted routes, REST, GraphQL and the baked images all publish what these functions return.
 */

export const OB2_CONTEXT = 'https://w3id.org/openbadges/v2';

/** A JSON-LD document as published. */
export type BadgeDocument = Record<string, unknown>;

export interface IssuerFacts {
  uuid: string;
  name: string;
  website: string | null;
  /** The institution's contact e-mail; null only for institutions that enabled badges before it was required. */
  email: string | null;
  /** Public URL of the institution's badge image (PNG or SVG). */
  imageUrl: string;
}

export interface BadgeClassFacts {
  uuid: string;
  name: string;
  description: string | null;
  /** Total hours of the course. */
  workload: number | null;
  /** Attached modules in display order (module-order.ts), each with its group's name. */
  modules: { name: string; workload: number | null; group: string | null }[];
  issuer: IssuerFacts;
}

export interface AssertionFacts {
  certificateUuid: string;
  courseUuid: string;
  /** The recipient's email as frozen at issuance. */
  recipientEmail: string;
  salt: string;
  issuedAt: Date;
  expiresAt: Date | null;
  verificationUrl: string;
  imageType: BakedImageType;
}

export interface RevokedFacts {
  certificateUuid: string;
  revocationReason: string | null;
}

/** IdentityHash of an email: `sha256$` + hex SHA-256 of the lower-cased address followed by the salt. */
export function recipientIdentity(email: string, salt: string): string {
  return `sha256$${createHash('sha256')
    .update(email.trim().toLowerCase() + salt)
    .digest('hex')}`;
}

/**
 * The RFC 3986 authority of a URI as written (host and port, even a default port spelled out): what
 * verifiers (1EdTech openbadges-validator-core) compare an assertion id against `allowedOrigins` by.
 * WHATWG `URL.host` would drop a written `:443`.
 */
export const uriAuthority = (uri: string): string => /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri)?.[1] ?? '';

export function issuerProfile(facts: IssuerFacts, urls: BadgeUrls): BadgeDocument {
  const id = urls.issuer(facts.uuid);
  return {
    '@context': OB2_CONTEXT,
    type: 'Issuer',
    id,
    name: facts.name,
    // Without a website the profile itself is the issuer's public page on this service.
    url: facts.website ?? id,
    ...(facts.email ? { email: facts.email } : {}),
    image: facts.imageUrl,
    revocationList: urls.revocationList(facts.uuid),
    // Hosted assertions are valid only on this service's origin.
    verification: { type: 'VerificationObject', allowedOrigins: [uriAuthority(id)] },
  };
}

const hours = (workload: number | null) => (workload ? ` (${workload} h)` : '');

/** Markdown: what completing the course takes — its description, workload and modules by group. */
export function criteriaNarrative(facts: BadgeClassFacts): string {
  const lines = [`Complete the course **${facts.name}**${facts.workload ? ` (${facts.workload} hours)` : ''} at ${facts.issuer.name}.`];
  if (facts.description) lines.push('', facts.description);
  let group: string | null | undefined;
  for (const module of facts.modules) {
    if (module.group !== group) {
      group = module.group;
      lines.push('', `**${group ?? 'Other modules'}**`, '');
    }
    lines.push(`- ${module.name}${hours(module.workload)}`);
  }
  return lines.join('\n');
}

export function badgeClass(facts: BadgeClassFacts, urls: BadgeUrls): BadgeDocument {
  return {
    '@context': OB2_CONTEXT,
    type: 'BadgeClass',
    id: urls.badgeClass(facts.uuid),
    name: facts.name,
    description: facts.description ?? `Awarded by ${facts.issuer.name} for completing the course ${facts.name}.`,
    image: facts.issuer.imageUrl,
    criteria: { narrative: criteriaNarrative(facts) },
    issuer: urls.issuer(facts.issuer.uuid),
  };
}

export function assertion(facts: AssertionFacts, urls: BadgeUrls): BadgeDocument {
  return {
    '@context': OB2_CONTEXT,
    type: 'Assertion',
    id: urls.assertion(facts.certificateUuid),
    recipient: { type: 'email', hashed: true, salt: facts.salt, identity: recipientIdentity(facts.recipientEmail, facts.salt) },
    badge: urls.badgeClass(facts.courseUuid),
    verification: { type: 'hosted' },
    issuedOn: formatTimestamp(facts.issuedAt),
    ...(facts.expiresAt ? { expires: formatTimestamp(facts.expiresAt) } : {}),
    evidence: facts.verificationUrl,
    image: urls.bakedImage(facts.certificateUuid, facts.imageType),
  };
}

/** What a revoked assertion's id answers (with 410 Gone): only `id` and `revoked` are required. */
export function revokedAssertion(facts: RevokedFacts, urls: BadgeUrls): BadgeDocument {
  return {
    '@context': OB2_CONTEXT,
    id: urls.assertion(facts.certificateUuid),
    revoked: true,
    ...(facts.revocationReason ? { revocationReason: facts.revocationReason } : {}),
  };
}

export function revocationList(institutionUuid: string, revoked: RevokedFacts[], urls: BadgeUrls): BadgeDocument {
  return {
    '@context': OB2_CONTEXT,
    type: 'RevocationList',
    id: urls.revocationList(institutionUuid),
    issuer: urls.issuer(institutionUuid),
    revokedAssertions: revoked.map((entry) => ({
      id: urls.assertion(entry.certificateUuid),
      uid: entry.certificateUuid,
      ...(entry.revocationReason ? { revocationReason: entry.revocationReason } : {}),
    })),
  };
}
