import type { PublicContext } from '../../context/request-context.js';
import { courseAndEnrollmentOf } from '../../certificates/certificate.repository.js';
import { attachedModules, transcriptListing } from '../../courses/attached-modules.js';
import { Course } from '../../courses/course.entity.js';
import { acrossTenants } from '../../db/tenant-scope.js';
import { Enrollment } from '../../enrollments/enrollment.entity.js';
import type { Institution } from '../../institutions/institution.entity.js';
import { signCredential } from '../v3/credential-signing.js';
import { hostedRecord } from '../v3/credential.service.js';
import { ob3Urls } from '../v3/did-web.js';
import { activeIssuerSigner } from '../v3/issuer-keys.js';
import { storedClrDocument, storeSignedClr } from '../v3/open-badges-v3.repository.js';
import { type CredentialDocument, withProofList } from '../v3/open-badge-credential.js';
import type { OpenBadgeCredentialRecord } from '../v3/open-badge-credential.entity.js';
import { signClr, unsignedClr } from './clr-credential.js';

/** A signer of credentials with the institution's active key, proofs as a list (1EdTech's schemas). */
export async function institutionSigner(ctx: PublicContext, institution: Institution) {
  const signer = await activeIssuerSigner(ctx, institution, ob3Urls(ctx.publicBaseUrl).issuerDid(institution.uuid));
  return async (credential: CredentialDocument) => withProofList(await signCredential(credential, signer));
}

/** Credentials issued before CLR 2.0 existed: their transcript from the course's modules and the enrollment grade as they are now. */
async function clrOfEarlierCredential(ctx: PublicContext, record: OpenBadgeCredentialRecord): Promise<CredentialDocument> {
  const row = await courseAndEnrollmentOf(ctx.em, record.certificateUuid);
  const course = await ctx.em.findOneOrFail(Course, { uuid: row!.course_uuid }, acrossTenants());
  const enrollment = row!.enrollment_uuid ? await ctx.em.findOne(Enrollment, { uuid: row!.enrollment_uuid }, acrossTenants()) : null;
  const listing = transcriptListing(await attachedModules(ctx.em, course));
  return unsignedClr({ openBadge: record.document, id: ob3Urls(ctx.publicBaseUrl).clr(record.certificateUuid), listing, grade: enrollment?.grade ?? null });
}

const hasProof = (document: CredentialDocument | null): document is CredentialDocument => !!document && document.proof !== undefined;

/**
 * The signed ClrCredential of a stored OB 3.0 credential: as stored once signed; else signed now with
 * the institution's active key and stored (the first signer of a race wins, every reader gets its copy).
 */
async function signedClr(ctx: PublicContext, record: OpenBadgeCredentialRecord, institution: Institution): Promise<CredentialDocument> {
  const read = () => storedClrDocument(ctx.em, record.certificateUuid);
  const stored = await read();
  if (hasProof(stored)) return stored;
  const signed = await signClr(stored ?? (await clrOfEarlierCredential(ctx, record)), await institutionSigner(ctx, institution));
  await storeSignedClr(ctx.em, record.certificateUuid, signed);
  const now = await read();
  return hasProof(now) ? now : signed;
}

/**
 * The certificate's academic transcript as a CLR 2.0 ClrCredential, public like its OB 3.0 credential
 * (public-standing.ts through hostedRecord: `withdrawn`, or null for none, a draft, badges off) and
 * pointing at the same status list entry.
 */
export const clrCredentials = {
  async hostedCredential(ctx: PublicContext, certificateUuid: string): Promise<CredentialDocument | 'withdrawn' | null> {
    const hosted = await hostedRecord(ctx, certificateUuid);
    if (!hosted || hosted === 'withdrawn') return hosted;
    return signedClr(ctx, hosted.record, hosted.institution);
  },
};
