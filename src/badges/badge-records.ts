import { randomBytes } from 'node:crypto';
import type { PublicContext, RequestContext } from '../context/request-context.js';
import { verificationUrl } from '../certificates/certificate-rules.js';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import { attachedModules } from '../courses/attached-modules.js';
import { Course } from '../courses/course.entity.js';
import { TENANT_FILTER } from '../db/tenant-scope.js';
import { isUuid } from '../db/uuid.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { PNG, SVG } from '../files/file-type.js';
import { Institution } from '../institutions/institution.entity.js';
import { BadgeAssertionSalt } from './badge-salt.entity.js';
import type { BakedImageType } from './badge-urls.js';
import type { AssertionFacts, BadgeClassFacts, IssuerFacts, RevokedFacts } from './open-badges.js';

/**
 * Reads what the Open Badges documents are built from. A public context (the hosted /ob/ URLs) reads
 * across tenants by uuid; an authenticated one through its tenant-scoped EntityManager, so a foreign
 * uuid is simply not found. Badges off, a draft, a deleted row or an unknown uuid: null.
 */
type BadgeScope = 'public' | 'tenant';

const scopeOf = (ctx: PublicContext): BadgeScope => ((ctx as Partial<RequestContext>).tenant ? 'tenant' : 'public');
const scoped = (scope: BadgeScope) => (scope === 'public' ? { filters: { [TENANT_FILTER]: false } } : {});

export interface BadgeIssuer {
  institution: Institution;
  /** The institution's badge image: the unbaked image of its badge classes, the base of baked ones. */
  image: StoredFile;
  imageType: BakedImageType;
}

export interface BadgeAssertionRecord {
  certificate: Certificate;
  issuer: BadgeIssuer;
}

/** An institution that issues badges, with its badge image; null when badges are off or anything is missing. */
export async function badgeIssuerOf(ctx: PublicContext, institutionUuid: string): Promise<BadgeIssuer | null> {
  if (!isUuid(institutionUuid)) return null;
  const { em } = ctx;
  const scope = scopeOf(ctx);
  const institution = await em.findOne(Institution, { uuid: institutionUuid, isBadgesEnabled: true }, scoped(scope));
  if (!institution?.badgeImageUuid) return null;
  const image = await em.findOne(StoredFile, { uuid: institution.badgeImageUuid, tenant: institution.tenant }, scoped(scope));
  const imageType = image?.mimeType === PNG.mimeType ? 'png' : image?.mimeType === SVG.mimeType ? 'svg' : null;
  return image && imageType ? { institution, image, imageType } : null;
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

/** A course of a badge-issuing institution with its modules in display order; null otherwise. */
export async function badgeClassFactsOf(ctx: PublicContext, courseUuid: string): Promise<BadgeClassFacts | null> {
  if (!isUuid(courseUuid)) return null;
  const { em } = ctx;
  const scope = scopeOf(ctx);
  const course = await em.findOne(Course, { uuid: courseUuid }, scoped(scope));
  const issuer = course && (await badgeIssuerOf(ctx, course.institution.uuid));
  if (!course || !issuer) return null;
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

/** An issued (or since revoked or expired) certificate of a badge-issuing institution; null otherwise. */
export async function badgeAssertionOf(ctx: PublicContext, certificateUuid: string): Promise<BadgeAssertionRecord | null> {
  if (!isUuid(certificateUuid)) return null;
  const certificate = await ctx.em.findOne(Certificate, { uuid: certificateUuid, status: { $ne: CertificateStatus.draft } }, scoped(scopeOf(ctx)));
  if (!certificate?.issuedAt || !certificate.recipientEmail) return null;
  const issuer = await badgeIssuerOf(ctx, certificate.institution.uuid);
  return issuer && { certificate, issuer };
}

export const isRevoked = (record: BadgeAssertionRecord) => record.certificate.status === CertificateStatus.revoked;

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

export const revokedFacts = (certificate: Pick<Certificate, 'uuid' | 'revocationReason'>): RevokedFacts => ({
  certificateUuid: certificate.uuid,
  revocationReason: certificate.revocationReason ?? null,
});

const SALT_INSERT = `insert into badge_assertion_salts (certificate_uuid, salt, created_at) values (?, ?, now()) on conflict (certificate_uuid) do nothing`;

/**
 * The certificate's recipient salt: read, or drawn once. Concurrent first reads race on the primary
 * key; the loser's insert does nothing and it reads the winner's salt.
 */
export async function saltOf({ em }: PublicContext, certificateUuid: string): Promise<string> {
  const stored = await em.findOne(BadgeAssertionSalt, { certificateUuid }, { disableIdentityMap: true });
  if (stored) return stored.salt;
  await em.getConnection().execute(SALT_INSERT, [certificateUuid, randomBytes(16).toString('hex')], 'run');
  const drawn = await em.findOneOrFail(BadgeAssertionSalt, { certificateUuid }, { disableIdentityMap: true });
  return drawn.salt;
}

/** Revoked live certificates of the institution, read from the database on every call (no cache to go stale). */
export async function revokedCertificatesOf(ctx: PublicContext, institution: Institution): Promise<RevokedFacts[]> {
  const revoked = await ctx.em.find(
    Certificate,
    { institution, status: CertificateStatus.revoked },
    { ...scoped(scopeOf(ctx)), orderBy: { revokedAt: 'asc', uuid: 'asc' }, fields: ['uuid', 'revocationReason'] },
  );
  return revoked.map(revokedFacts);
}
