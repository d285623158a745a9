import { verificationUrl } from '../certificates/certificate-rules.js';
import type { PublicContext } from '../context/request-context.js';
import {
  assertionFacts,
  badgeAssertionOf,
  badgeClassFactsOf,
  badgeIssuerOf,
  type BadgeAssertionRecord,
  isShown,
  issuerFacts,
  revokedCertificatesOf,
  revokedFacts,
  saltOf,
  type WithdrawnAssertion,
} from './badge-records.js';
import { badgeUrls, type BakedImageType } from './badge-urls.js';
import { bakedBadge, type BakedImage } from './baked-badge.js';
import { assertion, badgeClass, type BadgeDocument, issuerProfile, revocationList, revokedAssertion } from './open-badges.js';

/** A hosted assertion as its id answers it: the document, or (revoked or withdrawn) the stub that goes with 410 Gone. */
export interface HostedAssertion {
  document: BadgeDocument;
  revoked: boolean;
  /** The certificate's verification page: where a browser asking for HTML is sent. */
  verificationPage: string;
}

export type { BakedImage } from './baked-badge.js';

/** The full assertion, whatever the certificate's state: what was issued, for comparing a baked copy with. */
async function issuedAssertion(ctx: PublicContext, record: BadgeAssertionRecord): Promise<BadgeDocument> {
  const salt = await saltOf(ctx, record.certificate.uuid);
  return assertion(assertionFacts(record, salt, ctx.publicBaseUrl), badgeUrls(ctx.publicBaseUrl));
}

async function hosted(ctx: PublicContext, record: BadgeAssertionRecord | WithdrawnAssertion): Promise<HostedAssertion> {
  const verificationPage = verificationUrl(record.certificate, ctx.publicBaseUrl);
  // Revoked and withdrawn alike: the stub with `revoked: true`, answered 410 Gone.
  if (!isShown(record) || record.standing === 'revoked') {
    const stub = revokedAssertion(revokedFacts(record.certificate, record.standing === 'withdrawn'), badgeUrls(ctx.publicBaseUrl));
    return { document: stub, revoked: true, verificationPage };
  }
  return { document: await issuedAssertion(ctx, record), revoked: false, verificationPage };
}

/** An issuer-level document of a deleted institution: answered 410 Gone. */
export const GONE = 'gone';

/**
 * Open Badges 2.0 for institutions with badges enabled: the issuer profile, a badge class per course,
 * an assertion per issued certificate, the revocation list and baked images. Every method answers
 * null for what does not exist as a badge (badges off, a draft, unknown, another tenant's); what was
 * withdrawn (deleted) answers as public-standing.ts decides: revoked stubs, or GONE for issuer documents.
 * A public context reads across tenants by uuid; an authenticated one only its tenant's live rows.
 */
export const badges = {
  async issuer(ctx: PublicContext, institutionUuid: string): Promise<BadgeDocument | typeof GONE | null> {
    const issuer = await badgeIssuerOf(ctx, institutionUuid);
    if (!issuer || issuer === 'withdrawn') return issuer && GONE;
    return issuerProfile(issuerFacts(issuer, ctx.publicBaseUrl), badgeUrls(ctx.publicBaseUrl));
  },

  async badgeClass(ctx: PublicContext, courseUuid: string): Promise<BadgeDocument | typeof GONE | null> {
    const facts = await badgeClassFactsOf(ctx, courseUuid);
    if (!facts || facts === 'withdrawn') return facts && GONE;
    return badgeClass(facts, badgeUrls(ctx.publicBaseUrl));
  },

  async revocationList(ctx: PublicContext, institutionUuid: string): Promise<BadgeDocument | typeof GONE | null> {
    const issuer = await badgeIssuerOf(ctx, institutionUuid);
    if (!issuer || issuer === 'withdrawn') return issuer && GONE;
    return revocationList(institutionUuid, await revokedCertificatesOf(ctx, issuer.institution), badgeUrls(ctx.publicBaseUrl));
  },

  async assertion(ctx: PublicContext, certificateUuid: string): Promise<HostedAssertion | null> {
    const record = await badgeAssertionOf(ctx, certificateUuid);
    return record && hosted(ctx, record);
  },

  /** The full assertion as issued and what the certificate is now, for checking a baked copy; only `withdrawn` once deleted. */
  async issued(
    ctx: PublicContext,
    certificateUuid: string,
  ): Promise<{ record: BadgeAssertionRecord; issued: BadgeDocument } | { record: WithdrawnAssertion; issued: null } | null> {
    const record = await badgeAssertionOf(ctx, certificateUuid);
    if (!record) return null;
    return isShown(record) ? { record, issued: await issuedAssertion(ctx, record) } : { record, issued: null };
  },

  /** The institution's badge image with the assertion baked in; null unless `type` is the image's own type; the 410 stub once gone. */
  async bakedImage(ctx: PublicContext, certificateUuid: string, type: BakedImageType): Promise<BakedImage | HostedAssertion | null> {
    const record = await badgeAssertionOf(ctx, certificateUuid);
    if (!record) return null;
    if (!isShown(record)) return hosted(ctx, record);
    if (record.issuer.imageType !== type) return null;
    const answer = await hosted(ctx, record);
    if (answer.revoked) return answer;
    return bakedBadge(ctx, record.issuer, certificateUuid, { assertionId: answer.document.id as string }, JSON.stringify(answer.document));
  },

  /** Where the baked badge of an issued certificate downloads, when its institution issues badges. */
  async bakedImageUrl(ctx: PublicContext, certificateUuid: string): Promise<string | null> {
    const record = await badgeAssertionOf(ctx, certificateUuid);
    return record && isShown(record) && record.standing !== 'revoked'
      ? badgeUrls(ctx.publicBaseUrl).bakedImage(certificateUuid, record.issuer.imageType)
      : null;
  },
};
