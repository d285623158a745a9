import { openBadgeCredentials } from '../badges/v3/credential.service.js';
import { OB3_PATH } from '../badges/v3/did-web.js';
import { Certificate } from '../certificates/certificate.entity.js';
import { servesBadges } from '../certificates/public-standing.js';
import type { PublicContext } from '../context/request-context.js';
import { attachedModules } from '../courses/attached-modules.js';
import { Course } from '../courses/course.entity.js';
import { acrossTenants } from '../db/tenant-scope.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { Institution } from '../institutions/institution.entity.js';

/** What the credential page shows beyond the verification facts: the achievement and how to check it. */
export interface CredentialDetails {
  /** The institution's badge image, shown as the credential's picture; null when it has none. */
  imageUrl: string | null;
  courseDescription: string | null;
  modules: { code: string | null; name: string; workload: number | null; credits: number | null }[];
  /** The final grade (0–10, two decimals), only when the institution publishes grades (`is_grade_public`). */
  grade: string | null;
  /** The Open Badges 3.0 credential and where its proof and status are checked; null without one. */
  credential: { jsonUrl: string; imageUrl: string; issuerKeyUrl: string; verificationMethod: string | null; statusListUrl: string | null } | null;
}

const first = (value: unknown): Record<string, unknown> | undefined =>
  ([] as unknown[]).concat(value ?? []).find((entry): entry is Record<string, unknown> => !!entry && typeof entry === 'object');

/** The details of a certificate the verification facts already showed (so it exists and is public). */
export async function credentialDetails(ctx: PublicContext, certificateUuid: string): Promise<CredentialDetails> {
  const { em, publicBaseUrl } = ctx;
  const certificate = await em.findOneOrFail(Certificate, { uuid: certificateUuid }, acrossTenants('deleted too'));
  const [institution, course] = await Promise.all([
    em.findOneOrFail(Institution, { uuid: certificate.institution.uuid }, acrossTenants('deleted too')),
    em.findOneOrFail(Course, { uuid: certificate.course.uuid }, acrossTenants('deleted too')),
  ]);
  const [modules, enrollment, image, credential] = await Promise.all([
    attachedModules(em, course),
    institution.isGradePublic && certificate.enrollment ? em.findOne(Enrollment, { uuid: certificate.enrollment.uuid }, acrossTenants('deleted too')) : null,
    institution.badgeImageUuid ? em.findOne(StoredFile, { uuid: institution.badgeImageUuid }, acrossTenants('deleted too')) : null,
    servesBadges(institution) ? openBadgeCredentials.hostedCredential(ctx, certificateUuid) : null,
  ]);
  const document = credential && credential !== 'withdrawn' ? credential : null;
  const grade = enrollment?.grade;
  return {
    imageUrl: image ? downloadUrl(publicBaseUrl, image.uuid) : null,
    courseDescription: course.description ?? null,
    modules: modules.map(({ module }) => module),
    grade: grade === null || grade === undefined ? null : Number(grade).toFixed(2),
    credential:
      document && image
        ? {
            jsonUrl: `${publicBaseUrl}${OB3_PATH}/credentials/${certificateUuid}`,
            imageUrl: `${publicBaseUrl}${OB3_PATH}/credentials/${certificateUuid}/image.${image.extension === 'svg' ? 'svg' : 'png'}`,
            issuerKeyUrl: `${publicBaseUrl}${OB3_PATH}/issuers/${institution.uuid}/did.json`,
            verificationMethod: (first(document.proof)?.verificationMethod as string | undefined) ?? null,
            statusListUrl: (first(document.credentialStatus)?.statusListCredential as string | undefined) ?? null,
          }
        : null,
  };
}
