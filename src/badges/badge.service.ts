import type { EntityManager } from '@mikro-orm/postgresql';
import type { Certificate } from '../certificates/certificate.entity.js';
import { files } from '../files/file.service.js';
import { PNG, SVG } from '../files/file-type.js';
import {
  assertionFacts,
  badgeAssertionFor,
  badgeAssertionOf,
  badgeClassFactsOf,
  badgeIssuerOf,
  type BadgeAssertionRecord,
  type BadgeScope,
  isRevoked,
  issuerFacts,
  revokedCertificatesOf,
  revokedFacts,
  saltOf,
} from './badge-records.js';
import { badgeUrls, type BakedImageType } from './badge-urls.js';
import { assertion, badgeClass, type BadgeDocument, issuerProfile, revocationList, revokedAssertion } from './open-badges.js';
import { bakePng } from './png-baking.js';
import { bakeSvg } from './svg-baking.js';

/** A hosted assertion as its id answers it: the document, or (revoked) the stub that goes with 410 Gone. */
export interface HostedAssertion {
  document: BadgeDocument;
  revoked: boolean;
  /** The certificate's verification page: where a browser asking for HTML is sent. */
  verificationPage: string;
}

export interface BakedImage {
  bytes: Buffer;
  mimeType: string;
}

/** The full assertion, whatever the certificate's state: what was issued, for comparing a baked copy with. */
async function issuedAssertion(em: EntityManager, record: BadgeAssertionRecord, publicBaseUrl: string): Promise<BadgeDocument> {
  const salt = await saltOf(em, record.certificate.uuid);
  return assertion(assertionFacts(record, salt, publicBaseUrl), badgeUrls(publicBaseUrl));
}

async function hosted(em: EntityManager, record: BadgeAssertionRecord, publicBaseUrl: string): Promise<HostedAssertion> {
  const document = isRevoked(record)
    ? revokedAssertion(revokedFacts(record.certificate), badgeUrls(publicBaseUrl))
    : await issuedAssertion(em, record, publicBaseUrl);
  return { document, revoked: isRevoked(record), verificationPage: assertionFacts(record, '', publicBaseUrl).verificationUrl };
}

async function contentOf(em: EntityManager, record: BadgeAssertionRecord): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await files.open(em, record.issuer.image)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Open Badges 2.0 for institutions with badges enabled: the issuer profile, a badge class per course,
 * an assertion per issued certificate, the revocation list and baked images. Every method answers
 * null for what does not exist as a badge (badges off, a draft, deleted, unknown, another tenant's).
 */
export const badges = {
  async issuer(em: EntityManager, institutionUuid: string, publicBaseUrl: string, scope: BadgeScope): Promise<BadgeDocument | null> {
    const issuer = await badgeIssuerOf(em, institutionUuid, scope);
    return issuer && issuerProfile(issuerFacts(issuer, publicBaseUrl), badgeUrls(publicBaseUrl));
  },

  async badgeClass(em: EntityManager, courseUuid: string, publicBaseUrl: string, scope: BadgeScope): Promise<BadgeDocument | null> {
    const facts = await badgeClassFactsOf(em, courseUuid, publicBaseUrl, scope);
    return facts && badgeClass(facts, badgeUrls(publicBaseUrl));
  },

  async revocationList(em: EntityManager, institutionUuid: string, publicBaseUrl: string, scope: BadgeScope): Promise<BadgeDocument | null> {
    const issuer = await badgeIssuerOf(em, institutionUuid, scope);
    if (!issuer) return null;
    return revocationList(institutionUuid, await revokedCertificatesOf(em, issuer.institution, scope), badgeUrls(publicBaseUrl));
  },

  async assertion(em: EntityManager, certificateUuid: string, publicBaseUrl: string, scope: BadgeScope): Promise<HostedAssertion | null> {
    const record = await badgeAssertionOf(em, certificateUuid, scope);
    return record && hosted(em, record, publicBaseUrl);
  },

  /** The same for a certificate already loaded (GraphQL's `Certificate.badgeAssertion`). */
  async assertionFor(em: EntityManager, certificate: Certificate, publicBaseUrl: string, scope: BadgeScope): Promise<HostedAssertion | null> {
    const record = await badgeAssertionFor(em, certificate, scope);
    return record && hosted(em, record, publicBaseUrl);
  },

  /** The full assertion as issued, and what the certificate is now; for checking a baked copy. */
  async issued(em: EntityManager, certificateUuid: string, publicBaseUrl: string): Promise<{ record: BadgeAssertionRecord; issued: BadgeDocument } | null> {
    const record = await badgeAssertionOf(em, certificateUuid, 'public');
    return record && { record, issued: await issuedAssertion(em, record, publicBaseUrl) };
  },

  /** The institution's badge image with the assertion baked in; null unless `type` is the image's own type. */
  async bakedImage(em: EntityManager, certificateUuid: string, type: BakedImageType, publicBaseUrl: string): Promise<BakedImage | HostedAssertion | null> {
    const record = await badgeAssertionOf(em, certificateUuid, 'public');
    if (!record || record.issuer.imageType !== type) return null;
    const answer = await hosted(em, record, publicBaseUrl);
    if (answer.revoked) return answer;
    const json = JSON.stringify(answer.document);
    const image = await contentOf(em, record);
    if (type === 'png') return { bytes: bakePng(image, json), mimeType: PNG.mimeType };
    return { bytes: Buffer.from(bakeSvg(image.toString('utf8'), answer.document.id as string, json), 'utf8'), mimeType: SVG.mimeType };
  },

  /** Where the baked badge of an issued certificate downloads, when its institution issues badges. */
  async bakedImageUrl(em: EntityManager, certificateUuid: string, publicBaseUrl: string): Promise<string | null> {
    const record = await badgeAssertionOf(em, certificateUuid, 'public');
    return record && !isRevoked(record) ? badgeUrls(publicBaseUrl).bakedImage(certificateUuid, record.issuer.imageType) : null;
  },
};
