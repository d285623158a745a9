import { randomBytes } from 'node:crypto';
import type { PublicContext, RequestContext } from '../context/request-context.js';
import { verificationUrl } from '../certificates/certificate-rules.js';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import { badgeStanding, issuerStanding, type PublicStanding } from '../certificates/public-standing.js';
import { attachedModules } from '../courses/attached-modules.js';
import { Course } from '../courses/course.entity.js';
import { acrossTenants, LIVE_FILTER } from '../db/tenant-scope.js';
import { isUuid } from '../db/uuid.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { PNG, SVG } from '../files/file-type.js';
import { Institution } from '../institutions/institution.entity.js';
import { insertSaltUnlessDrawn } from './badge.repository.js';
import { BadgeAssertionSalt } from './badge-salt.entity.js';
import type { BakedImageType } from './badge-urls.js';
import type { AssertionFacts, BadgeClassFacts, IssuerFacts, RevokedFacts } from './open-badges.js';

/**
 * Reads what the Open Badges documents are built from. A public context (the hosted /ob/ URLs) reads
 * across tenants by uuid, deleted rows included: what a deletion means is public-standing.ts's to
 * say (withdrawn, 410). An authenticated one reads through its tenant-scoped EntityManager, so a
 * foreign or deleted uuid is simply not found. Badges off, a draft or an unknown uuid: null.
 */
type BadgeScope = 'public' | 'tenant';

const scopeOf = (ctx: PublicContext): BadgeScope => ((ctx as Partial<RequestContext>).tenant ? 'tenant' : 'public');
const scoped = (scope: BadgeScope) => (scope === 'public' ? acrossTenants('deleted too') : {});
/** Live rows only, in the scope's tenants: files (a deleted file's content may be gone), certificates still awarded. */
const liveRows = (scope: BadgeScope) => (scope === 'public' ? acrossTenants() : {});
/** Deleted rows too, in the scope's tenants. */
const includingDeleted = (scope: BadgeScope) => (scope === 'public' ? acrossTenants('deleted too') : { filters: { [LIVE_FILTER]: false } });

export interface BadgeIssuer {
  institution: Institution;
  /** The institution's badge image: the unbaked image of its badge classes, the base of baked ones. */
  image: StoredFile;
  imageType: BakedImageType;
}

/** An assertion the public is shown: its certificate, issuer, and what it says now. */
export interface BadgeAssertionRecord {
  certificate: Certificate;
  issuer: BadgeIssuer;
  standing: 'valid' | 'revoked' | 'expired';
}

/** An assertion whose certificate (or institution) was deleted: answered as revoked, 410. */
export interface WithdrawnAssertion {
  certificate: Certificate;
  standing: 'withdrawn';
}

/** Why a withdrawn assertion is gone, as its stub and the revocation list say it. */
export const WITHDRAWN_REASON = 'Withdrawn by the issuer.';

/** The institution's badge image; null when it is missing or of a type that cannot be baked. */
export async function issuerWithImage(ctx: PublicContext, institution: Institution): Promise<BadgeIssuer | null> {
  const image = await ctx.em.findOne(StoredFile, { uuid: institution.badgeImageUuid!, tenant: institution.tenant }, liveRows(scopeOf(ctx)));
  const imageType = image?.mimeType === PNG.mimeType ? 'png' : image?.mimeType === SVG.mimeType ? 'svg' : null;
  return image && imageType ? { institution, image, imageType } : null;
}

/**
 * An institution that issues badges, with its badge image: `withdrawn` once deleted, null when
 * badges are off or anything is missing (public-standing.ts, issuerStanding).
 */
export async function badgeIssuerOf(ctx: PublicContext, institutionUuid: string): Promise<BadgeIssuer | 'withdrawn' | null> {
  if (!isUuid(institutionUuid)) return null;
  const institution = await ctx.em.findOne(Institution, { uuid: institutionUuid }, scoped(scopeOf(ctx)));
  const standing = issuerStanding(institution);
  if (standing !== 'valid') return standing === 'withdrawn' ? standing : null;
  return issuerWithImage(ctx, institution!);
}

export function issuerFacts(issuer: BadgeIssuer, publicBaseUrl: string): IssuerFacts {
  const { institution, image } = issuer;
  return {
    uuid: institution.uuid,
    name: institution.name,
    website: institution.website ?? null,
    email: institution.email ?? null,
    imageUrl: downloadUrl(publicBaseUrl, image.uuid),
  };
}

/**
 * Whether a deleted course's badge class is still served: while an issued certificate that is not
 * withdrawn names it, because its assertions point at it (docs/public-lifecycle.md).
 */
async function stillAwarded(ctx: PublicContext, course: Course): Promise<boolean> {
  const awarded = await ctx.em.count(Certificate, { course, status: { $ne: CertificateStatus.draft } }, liveRows(scopeOf(ctx)));
  return awarded > 0;
}

/**
 * A course of a badge-issuing institution with its modules in display order; `withdrawn` once the
 * institution was deleted; null otherwise (and for a deleted course nothing issued names any more).
 */
export async function badgeClassFactsOf(ctx: PublicContext, courseUuid: string): Promise<BadgeClassFacts | 'withdrawn' | null> {
  if (!isUuid(courseUuid)) return null;
  const { em } = ctx;
  const course = await em.findOne(Course, { uuid: courseUuid }, scoped(scopeOf(ctx)));
  const issuer = course && (await badgeIssuerOf(ctx, course.institution.uuid));
  if (!course || !issuer || issuer === 'withdrawn') return issuer === 'withdrawn' ? issuer : null;
  if (course.deletedAt && !(await stillAwarded(ctx, course))) return null;
  const attachments = await attachedModules(em, course);
  return {
    uuid: course.uuid,
    name: course.name,
    description: course.description ?? null,
    workload: course.workload ?? null,
    modules: attachments.map(({ module, group }) => ({ name: module.name, workload: module.workload, group: group?.name ?? null })),
    issuer: issuerFacts(issuer, ctx.publicBaseUrl),
  };
}

/** A certificate and its institution as badge documents see them (deleted rows too, publicly), and the standing they give. */
export interface BadgeSubject {
  certificate: Certificate | null;
  institution: Institution | null;
  standing: PublicStanding;
}

/** Reads a certificate and its institution and decides their badge standing (public-standing.ts, badgeStanding). */
export async function badgeSubjectOf(ctx: PublicContext, certificateUuid: string): Promise<BadgeSubject> {
  const scope = scoped(scopeOf(ctx));
  const certificate = isUuid(certificateUuid) ? await ctx.em.findOne(Certificate, { uuid: certificateUuid }, scope) : null;
  const institution =
    certificate && certificate.status !== CertificateStatus.draft ? await ctx.em.findOne(Institution, { uuid: certificate.institution.uuid }, scope) : null;
  return { certificate, institution, standing: badgeStanding(certificate, institution) };
}

/**
 * The assertion of an issued certificate as its standing decides: shown (valid, revoked or
 * expired), withdrawn, or null (a draft, unknown, badges off).
 */
export async function badgeAssertionOf(ctx: PublicContext, certificateUuid: string): Promise<BadgeAssertionRecord | WithdrawnAssertion | null> {
  const { certificate, institution, standing } = await badgeSubjectOf(ctx, certificateUuid);
  if (standing === 'absent' || !certificate?.issuedAt || !certificate.recipientEmail) return null;
  if (standing === 'withdrawn') return { certificate, standing };
  const issuer = await issuerWithImage(ctx, institution!);
  return issuer && { certificate, issuer, standing };
}

export const isShown = (record: BadgeAssertionRecord | WithdrawnAssertion): record is BadgeAssertionRecord => record.standing !== 'withdrawn';

export function assertionFacts(record: BadgeAssertionRecord, salt: string, publicBaseUrl: string): AssertionFacts {
  const { certificate } = record;
  return {
    certificateUuid: certificate.uuid,
    courseUuid: certificate.course.uuid,
    recipientEmail: certificate.recipientEmail!,
    salt,
    issuedAt: certificate.issuedAt!,
    expiresAt: certificate.expiresAt ?? null,
    verificationUrl: verificationUrl(certificate, publicBaseUrl),
    imageType: record.issuer.imageType,
  };
}

/** What the revoked stub and the revocation list say of a revoked or withdrawn certificate. */
export const revokedFacts = (certificate: Pick<Certificate, 'uuid' | 'revocationReason' | 'deletedAt'>, withdrawn = !!certificate.deletedAt): RevokedFacts => ({
  certificateUuid: certificate.uuid,
  revocationReason: withdrawn ? WITHDRAWN_REASON : (certificate.revocationReason ?? null),
});

/**
 * The certificate's recipient salt: read, or drawn once. Concurrent first reads race on the primary
 * key; the loser's insert does nothing and it reads the winner's salt.
 */
export async function saltOf({ em }: PublicContext, certificateUuid: string): Promise<string> {
  const stored = await em.findOne(BadgeAssertionSalt, { certificateUuid }, { disableIdentityMap: true });
  if (stored) return stored.salt;
  await insertSaltUnlessDrawn(em, certificateUuid, randomBytes(16).toString('hex'));
  const drawn = await em.findOneOrFail(BadgeAssertionSalt, { certificateUuid }, { disableIdentityMap: true });
  return drawn.salt;
}

/**
 * The institution's revoked certificates and its withdrawn (deleted) issued ones, read from the
 * database on every call (no cache to go stale).
 */
export async function revokedCertificatesOf(ctx: PublicContext, institution: Institution): Promise<RevokedFacts[]> {
  const gone = await ctx.em.find(
    Certificate,
    { institution, $or: [{ status: CertificateStatus.revoked }, { status: { $ne: CertificateStatus.draft }, deletedAt: { $ne: null } }] },
    {
      ...includingDeleted(scopeOf(ctx)),
      orderBy: { revokedAt: 'asc', deletedAt: 'asc', uuid: 'asc' },
      fields: ['uuid', 'revocationReason', 'deletedAt'],
    },
  );
  return gone.map((certificate) => revokedFacts(certificate));
}
