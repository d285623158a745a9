import type { PublicContext, RequestContext } from '../../context/request-context.js';
import type { AttachedModule } from '../../courses/attached-modules.js';
import { attachedModules, transcriptListing } from '../../courses/attached-modules.js';
import { unsignedClr } from '../clr/clr-credential.js';
import { Course } from '../../courses/course.entity.js';
import { acrossTenants } from '../../db/tenant-scope.js';
import { isUuid } from '../../db/uuid.js';
import type { Enrollment } from '../../enrollments/enrollment.entity.js';
import { downloadUrl } from '../../files/file-runtime.js';
import { Institution } from '../../institutions/institution.entity.js';
import type { Certificate } from '../../certificates/certificate.entity.js';
import { randomBytes } from 'node:crypto';
import { criteriaNarrative } from '../open-badges.js';
import { badgeSubjectOf, issuerWithImage } from '../badge-records.js';
import { issuerStanding } from '../../certificates/public-standing.js';
import { bakedBadge, type BakedImage } from '../baked-badge.js';
import type { BakedImageType } from '../badge-urls.js';
import { signCredential } from './credential-signing.js';
import { ob3Urls } from './did-web.js';
import { documentReferences } from './credential-references.js';
import { dereferenceDid } from './document-loader.js';
import { activeIssuerSigner, publishedIssuerKeys } from './issuer-keys.js';
import { OpenBadgeCredentialRecord } from './open-badge-credential.entity.js';
import {
  type AchievementFacts,
  achievementDocument,
  type CredentialDocument,
  didDocument,
  type ProfileFacts,
  profileDocument,
  unsignedCredential,
  withProofList,
} from './open-badge-credential.js';
import { allocateStatusIndex, signedStatusList, statusListCredential } from './status-list.js';

/** What issuance hands over: the certificate just made issued and what it was issued from. */
export interface IssuedCertificate {
  certificate: Certificate;
  institution: Institution;
  course: Course;
  enrollment: Enrollment | null;
  /** The course's modules in display order, with module and group. */
  attachments: AttachedModule[];
}

export const profileFacts = (institution: Institution, publicBaseUrl: string): ProfileFacts => ({
  uuid: institution.uuid,
  name: institution.name,
  website: institution.website ?? null,
  email: institution.email ?? null,
  imageUrl: institution.badgeImageUuid ? downloadUrl(publicBaseUrl, institution.badgeImageUuid) : null,
});

/** The course as an Achievement: in the credentials issued for it, and at the Achievement's id. */
function achievementOf(
  { institution, course, attachments: modules }: Pick<IssuedCertificate, 'institution' | 'course' | 'attachments'>,
  issuer: ProfileFacts,
): AchievementFacts {
  const credits = modules.reduce((sum, { module }) => sum + (module.credits ?? 0), 0);
  const narrative = criteriaNarrative({
    uuid: course.uuid,
    name: course.name,
    description: course.description ?? null,
    workload: course.workload ?? null,
    modules: modules.map(({ module, group }) => ({ name: module.name, workload: module.workload ?? null, group: group?.name ?? null })),
    issuer: { ...issuer, imageUrl: issuer.imageUrl ?? '' },
  });
  return {
    courseUuid: course.uuid,
    name: course.name,
    description: course.description ?? `Awarded by ${institution.name} for completing the course ${course.name}.`,
    narrative,
    creditsAvailable: credits || null,
  };
}

/**
 * Signs and stores the certificate's OpenBadgeCredential, inside the issuance transaction (a
 * certificate of a badges-enabled institution is never issued without it). Three statements: the
 * active key, the status index, the stored credential (flushed with the rest of issuance).
 */
export async function issueOpenBadgeCredential(tx: RequestContext, issued: IssuedCertificate): Promise<void> {
  const { certificate, institution } = issued;
  const urls = ob3Urls(tx.publicBaseUrl);
  const signer = await activeIssuerSigner(tx, institution, urls.issuerDid(institution.uuid));
  const issuer = profileFacts(institution, tx.publicBaseUrl);
  // The rest of issuance is written first: from the index on, the institution's list row stays locked until commit.
  await tx.em.flush();
  const status = await allocateStatusIndex(tx.em, institution.uuid);
  const unsigned = unsignedCredential(
    {
      certificateUuid: certificate.uuid,
      issuedAt: certificate.issuedAt!,
      expiresAt: certificate.expiresAt ?? null,
      verificationUrl: certificate.publicVerificationUrl!,
      recipientEmail: certificate.recipientEmail!,
      salt: randomBytes(16).toString('hex'),
      issuer,
      achievement: achievementOf(issued, issuer),
      grade: issued.enrollment?.grade ?? null,
      status,
    },
    urls,
  );
  const document = withProofList(await signCredential(unsigned, signer));
  // The transcript's CLR 2.0 credential from the same facts, signed at its first read (clr.service.ts): no signing here.
  const clrDocument = unsignedClr({
    openBadge: unsigned,
    id: urls.clr(certificate.uuid),
    listing: transcriptListing(issued.attachments),
    grade: issued.enrollment?.grade ?? null,
  });
  tx.em.create(OpenBadgeCredentialRecord, {
    certificateUuid: certificate.uuid,
    institutionUuid: institution.uuid,
    statusIndex: status.index,
    document,
    clrDocument,
  });
}

/** Deleted institutions too: their status lists stay published (every bit set) and their profiles answer 410. */
async function institutionOf(ctx: PublicContext, institutionUuid: string): Promise<Institution | null> {
  return isUuid(institutionUuid) ? ctx.em.findOne(Institution, { uuid: institutionUuid }, acrossTenants('deleted too')) : null;
}

/** A genuine credential names three: its key, the key's DID document, its status list (signed by the same key). */
const MAX_REFERENCED_DOCUMENTS = 8;

/**
 * The lookup of the DID document, verification method or status list of this service at `url`
 * (null when none is there), or undefined for a URL that is not ours.
 */
function ownDocument(ctx: PublicContext, url: string): (() => Promise<object | null>) | undefined {
  const urls = ob3Urls(ctx.publicBaseUrl);
  const institutionUuid = urls.institutionOfDid(url);
  if (institutionUuid) return async () => dereferenceDidOrNull(await openBadgeCredentials.didDocument(ctx, institutionUuid), url);
  const list = urls.statusListOf(url);
  return list ? () => openBadgeCredentials.statusList(ctx, list.institutionUuid, list.listNumber) : undefined;
}

const dereferenceDidOrNull = (document: Parameters<typeof dereferenceDid>[0] | null, url: string) => document && dereferenceDid(document, url);

/**
 * The stored credential of a certificate the public may fetch, with the institution it was issued by;
 * `withdrawn` or null (none, a draft, badges off) as public-standing.ts decides. A revoked credential
 * is still served: its status list says so.
 */
export async function hostedRecord(
  ctx: PublicContext,
  certificateUuid: string,
): Promise<{ record: OpenBadgeCredentialRecord; institution: Institution } | 'withdrawn' | null> {
  if (!isUuid(certificateUuid)) return null;
  const [record, subject] = await Promise.all([
    ctx.em.findOne(OpenBadgeCredentialRecord, { certificateUuid }, { disableIdentityMap: true }),
    badgeSubjectOf(ctx, certificateUuid),
  ]);
  if (!record || subject.standing === 'absent') return null;
  return subject.standing === 'withdrawn' ? 'withdrawn' : { record, institution: subject.institution! };
}

/**
 * The Open Badges 3.0 documents this service publishes: stored credentials, issuer DID documents and
 * profiles, signed status lists. Public by unguessable uuid; null for whatever does not exist.
 * Credentials, their images and profiles follow the public lifecycle (public-standing.ts); DID
 * documents and status lists are always served, so a revocation or withdrawal stays checkable.
 */
export const openBadgeCredentials = {
  /** The credential as signed at issuance, at its public id: `withdrawn` once deleted, null while badges are off. */
  async hostedCredential(ctx: PublicContext, certificateUuid: string): Promise<CredentialDocument | 'withdrawn' | null> {
    const hosted = await hostedRecord(ctx, certificateUuid);
    return hosted && (hosted === 'withdrawn' ? hosted : withProofList(hosted.record.document));
  },

  /** The credentials of several certificates in one query, in the order asked (null where none). */
  async credentials(ctx: PublicContext, certificateUuids: readonly string[]): Promise<(CredentialDocument | null)[]> {
    const records = await ctx.em.find(OpenBadgeCredentialRecord, { certificateUuid: { $in: [...certificateUuids] } }, { disableIdentityMap: true });
    const byCertificate = new Map(records.map((record) => [record.certificateUuid, withProofList(record.document)]));
    return certificateUuids.map((uuid) => byCertificate.get(uuid) ?? null);
  },

  /** The institution's DID document: every key it ever signed with; null before its first credential. */
  async didDocument(ctx: PublicContext, institutionUuid: string) {
    if (!isUuid(institutionUuid)) return null;
    const keys = await publishedIssuerKeys(ctx, institutionUuid);
    return keys.length ? didDocument(ob3Urls(ctx.publicBaseUrl).issuerDid(institutionUuid), keys) : null;
  },

  /** The OB 3.0 Profile of a badges-enabled institution; `withdrawn` once deleted. */
  async profile(ctx: PublicContext, institutionUuid: string): Promise<CredentialDocument | 'withdrawn' | null> {
    const institution = await institutionOf(ctx, institutionUuid);
    const standing = issuerStanding(institution);
    if (standing !== 'valid') return standing === 'withdrawn' ? standing : null;
    return profileDocument(profileFacts(institution!, ctx.publicBaseUrl), ob3Urls(ctx.publicBaseUrl));
  },

  /**
   * The course's OB 3.0 Achievement at its id, as the course is now (a credential keeps the one it was
   * issued with); only while its institution issues badges.
   */
  async achievement(ctx: PublicContext, courseUuid: string): Promise<CredentialDocument | 'withdrawn' | null> {
    if (!isUuid(courseUuid)) return null;
    const course = await ctx.em.findOne(Course, { uuid: courseUuid }, acrossTenants());
    if (!course) return null;
    const institution = await institutionOf(ctx, course.institution.uuid);
    const standing = issuerStanding(institution);
    if (standing !== 'valid' || !institution) return standing === 'withdrawn' ? standing : null;
    const issuer = profileFacts(institution, ctx.publicBaseUrl);
    const facts = achievementOf({ institution, course, attachments: await attachedModules(ctx.em, course) }, issuer);
    return achievementDocument(facts, issuer.imageUrl, ob3Urls(ctx.publicBaseUrl));
  },

  /** The signed BitstringStatusListCredential of one of the institution's lists; re-signed after a revocation. */
  async statusList(ctx: PublicContext, institutionUuid: string, listNumber: number): Promise<CredentialDocument | null> {
    if (!isUuid(institutionUuid) || !Number.isSafeInteger(listNumber) || listNumber < 1) return null;
    const urls = ob3Urls(ctx.publicBaseUrl);
    return signedStatusList(ctx.em, institutionUuid, listNumber, async (bits) => {
      const institution = (await institutionOf(ctx, institutionUuid))!;
      const did = urls.issuerDid(institutionUuid);
      const signer = await activeIssuerSigner(ctx, institution, did);
      return signCredential(await statusListCredential(urls.statusList(institutionUuid, listNumber), did, bits), signer);
    });
  },

  /** The institution's badge image with the credential baked in (OB 3.0 §5.3), baked once; null unless `type` is the image's own type; `withdrawn` once deleted. */
  async bakedImage(ctx: PublicContext, certificateUuid: string, type: BakedImageType): Promise<BakedImage | 'withdrawn' | null> {
    const hosted = await hostedRecord(ctx, certificateUuid);
    if (!hosted || hosted === 'withdrawn') return hosted;
    const issuer = await issuerWithImage(ctx, hosted.institution);
    if (!issuer || issuer.imageType !== type) return null;
    return bakedBadge(ctx, issuer, certificateUuid, 'credential', JSON.stringify(withProofList(hosted.record.document)));
  },

  /**
   * The documents of this service verifying `credential` loads (DID documents, verification methods,
   * status lists), by URL, read before the CPU-heavy checks run on a worker. Anything not ours is left
   * out (the worker's loader refuses it); at most MAX_REFERENCED_DOCUMENTS are looked up, whatever a credential names.
   */
  async referencedDocuments(ctx: PublicContext, credential: CredentialDocument): Promise<Map<string, object>> {
    const found = new Map<string, object>();
    const seen = new Set<string>();
    let lookups = 0;
    for (let next = documentReferences(credential); next.length > 0;) {
      const round = next;
      next = [];
      for (const url of round) {
        const lookup = seen.has(url) ? undefined : ownDocument(ctx, url);
        seen.add(url);
        if (!lookup || lookups++ >= MAX_REFERENCED_DOCUMENTS) continue;
        const document = await lookup();
        if (!document) continue;
        found.set(url, document);
        next.push(...documentReferences(document as CredentialDocument));
      }
    }
    return found;
  },
};
