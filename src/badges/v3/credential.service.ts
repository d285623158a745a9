import type { PublicContext, RequestContext } from '../../context/request-context.js';
import type { AttachedModule } from '../../courses/attached-modules.js';
import type { Course } from '../../courses/course.entity.js';
import { TENANT_FILTER } from '../../db/tenant-scope.js';
import { isUuid } from '../../db/uuid.js';
import type { Enrollment } from '../../enrollments/enrollment.entity.js';
import { downloadUrl } from '../../files/file-runtime.js';
import { Institution } from '../../institutions/institution.entity.js';
import type { Certificate } from '../../certificates/certificate.entity.js';
import { randomBytes } from 'node:crypto';
import { criteriaNarrative } from '../open-badges.js';
import { badgeIssuerOf } from '../badge-records.js';
import { bakedBadge, type BakedImage } from '../baked-badge.js';
import type { BakedImageType } from '../badge-urls.js';
import { signCredential } from './credential-signing.js';
import { ob3Urls } from './did-web.js';
import { documentReferences } from './credential-references.js';
import { dereferenceDid } from './document-loader.js';
import { activeIssuerSigner, publishedIssuerKeys } from './issuer-keys.js';
import { OpenBadgeCredentialRecord } from './open-badge-credential.entity.js';
import { type CredentialDocument, didDocument, type ProfileFacts, profileDocument, unsignedCredential } from './open-badge-credential.js';
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

const ACROSS_TENANTS = { filters: { [TENANT_FILTER]: false } };

const profileFacts = (institution: Institution, publicBaseUrl: string): ProfileFacts => ({
  uuid: institution.uuid,
  name: institution.name,
  website: institution.website ?? null,
  imageUrl: institution.badgeImageUuid ? downloadUrl(publicBaseUrl, institution.badgeImageUuid) : null,
});

function achievementOf({ institution, course, attachments: modules }: IssuedCertificate, issuer: ProfileFacts) {
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
  const document = await signCredential(unsigned, signer);
  tx.em.create(OpenBadgeCredentialRecord, { certificateUuid: certificate.uuid, institutionUuid: institution.uuid, statusIndex: status.index, document });
}

async function institutionOf(ctx: PublicContext, institutionUuid: string): Promise<Institution | null> {
  return isUuid(institutionUuid) ? ctx.em.findOne(Institution, { uuid: institutionUuid }, ACROSS_TENANTS) : null;
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
 * The Open Badges 3.0 documents this service publishes: stored credentials, issuer DID documents and
 * profiles, signed status lists. Public by unguessable uuid; null for whatever does not exist.
 */
export const openBadgeCredentials = {
  /** The credential as signed at issuance; the caller has already found the certificate in its scope or reads publicly by uuid. */
  async credential(ctx: PublicContext, certificateUuid: string): Promise<CredentialDocument | null> {
    if (!isUuid(certificateUuid)) return null;
    const [document] = await openBadgeCredentials.credentials(ctx, [certificateUuid]);
    return document ?? null;
  },

  /** The credentials of several certificates in one query, in the order asked (null where none). */
  async credentials(ctx: PublicContext, certificateUuids: readonly string[]): Promise<(CredentialDocument | null)[]> {
    const records = await ctx.em.find(OpenBadgeCredentialRecord, { certificateUuid: { $in: [...certificateUuids] } }, { disableIdentityMap: true });
    const byCertificate = new Map(records.map((record) => [record.certificateUuid, record.document]));
    return certificateUuids.map((uuid) => byCertificate.get(uuid) ?? null);
  },

  /** The institution's DID document: every key it ever signed with; null before its first credential. */
  async didDocument(ctx: PublicContext, institutionUuid: string) {
    if (!isUuid(institutionUuid)) return null;
    const keys = await publishedIssuerKeys(ctx, institutionUuid);
    return keys.length ? didDocument(ob3Urls(ctx.publicBaseUrl).issuerDid(institutionUuid), keys) : null;
  },

  /** The OB 3.0 Profile of a badges-enabled institution. */
  async profile(ctx: PublicContext, institutionUuid: string): Promise<CredentialDocument | null> {
    const institution = await institutionOf(ctx, institutionUuid);
    return institution?.isBadgesEnabled && !institution.deletedAt
      ? profileDocument(profileFacts(institution, ctx.publicBaseUrl), ob3Urls(ctx.publicBaseUrl))
      : null;
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

  /** The institution's badge image with the credential baked in (OB 3.0 §5.3); null unless `type` is the image's own type. */
  async bakedImage(ctx: PublicContext, certificateUuid: string, type: BakedImageType): Promise<BakedImage | null> {
    if (!isUuid(certificateUuid)) return null;
    const record = await ctx.em.findOne(OpenBadgeCredentialRecord, { certificateUuid }, { disableIdentityMap: true });
    const issuer = record && (await badgeIssuerOf(ctx, record.institutionUuid));
    if (!record || !issuer || issuer.imageType !== type) return null;
    return bakedBadge(ctx, issuer, certificateUuid, 'credential', JSON.stringify(record.document));
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
