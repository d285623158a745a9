import { formatGrade, type TranscriptData, transcriptSections } from '../../documents/transcript-content.js';
import { CLR_CREDENTIAL_CONTEXT, OPEN_BADGE_CREDENTIAL_CONTEXT } from '../v3/document-loader.js';
import { ACHIEVEMENT_CREDENTIAL_SCHEMA, type CredentialDocument } from '../v3/open-badge-credential.js';

/**
 * The academic transcript as a 1EdTech CLR 2.0 `ClrCredential`, built from the certificate's Open
 * Badges 3.0 credential (issuer, recipient, course achievement, dates, status entry: the same facts,
 * signed by the same key) and the transcript's modules and grade. Pure: clr.service.ts signs it.
 */

export const CLR_CREDENTIAL_SCHEMA = {
  id: 'https://purl.imsglobal.org/spec/clr/v2p0/schema/json/clr_v2p0_clrcredential_schema.json',
  type: '1EdTechJsonSchemaValidator2019',
};

export interface ClrFacts {
  /** The certificate's OpenBadgeCredential (with or without its proof). */
  openBadge: CredentialDocument;
  /** The CLR's public id. */
  id: string;
  /** What the transcript lists: its modules and groups, and the enrollment grade (0–10) if any. */
  listing: Pick<TranscriptData, 'moduleGroups' | 'modules'>;
  grade: number | string | null;
}

type Subject = { identifier?: unknown; achievement: CredentialDocument & { id: string } };

const hours = (workload: number | null | undefined) => (workload ? ` Workload: ${workload} hours.` : '');

/** A module of the course as an Achievement (its uuid as its id: modules have no public document). */
function moduleAchievement(
  module: TranscriptData['modules'][number] & { uuid?: string },
  section: string,
  issuer: unknown,
): CredentialDocument & { id: string } {
  return {
    id: `urn:uuid:${module.uuid}`,
    type: ['Achievement'],
    achievementType: 'Course',
    name: module.name,
    description: `${module.name} (${section}).${hours(module.workload)}`,
    criteria: { narrative: `Completing the module ${module.name} of the course.${hours(module.workload)}` },
    creator: issuer,
    ...(module.code ? { humanCode: module.code } : {}),
    ...(module.credits ? { creditsAvailable: module.credits } : {}),
  };
}

const GRADE_DESCRIPTION = 'grade';

/**
 * The unsigned ClrCredential: per module an AchievementCredential (its achievement, workload and
 * credits), the course's AchievementCredential with the final grade as its result, the achievements
 * once more at the subject, and an association `isChildOf` from each module to the course.
 */
export function unsignedClr({ openBadge, id, listing, grade }: ClrFacts): CredentialDocument {
  const subject = openBadge.credentialSubject as Subject;
  const issuer = openBadge.issuer as { id: string };
  const course = subject.achievement;
  const shared = {
    issuer,
    validFrom: openBadge.validFrom,
    ...(openBadge.validUntil ? { validUntil: openBadge.validUntil } : {}),
    credentialStatus: openBadge.credentialStatus,
    credentialSchema: [ACHIEVEMENT_CREDENTIAL_SCHEMA],
  };
  const recipient = { ...(subject.identifier ? { identifier: subject.identifier } : {}) };
  const achievementCredential = (suffix: string, achievement: CredentialDocument, result: CredentialDocument = {}) => ({
    '@context': OPEN_BADGE_CREDENTIAL_CONTEXT,
    id: `${id}#${suffix}`,
    type: ['VerifiableCredential', 'AchievementCredential'],
    name: achievement.name,
    ...shared,
    credentialSubject: { type: ['AchievementSubject'], ...recipient, achievement, ...result },
  });
  const modules = transcriptSections(listing).flatMap((section) =>
    section.modules.map((module) => moduleAchievement(module, section.title, { id: issuer.id, type: ['Profile'] })),
  );
  const finalGrade = formatGrade(grade);
  const courseAchievement: CredentialDocument = finalGrade
    ? {
        ...course,
        resultDescription: [
          {
            id: `${course.id}#${GRADE_DESCRIPTION}`,
            type: ['ResultDescription'],
            name: 'Final grade',
            resultType: 'ScaledScore',
            valueMin: '0.00',
            valueMax: '10.00',
          },
        ],
      }
    : course;
  const courseResult = finalGrade ? { result: [{ type: ['Result'], resultDescription: `${course.id}#${GRADE_DESCRIPTION}`, value: finalGrade }] } : {};
  return {
    '@context': CLR_CREDENTIAL_CONTEXT,
    id,
    type: ['VerifiableCredential', 'ClrCredential'],
    name: `Academic transcript: ${String(course.name)}`,
    ...shared,
    credentialSubject: {
      type: ['ClrSubject'],
      ...recipient,
      verifiableCredential: [
        ...modules.map((module) => achievementCredential(`module-${module.id.slice('urn:uuid:'.length)}`, module)),
        achievementCredential('course', courseAchievement, courseResult),
      ],
      achievement: [...modules, courseAchievement],
      association: modules.map((module) => ({ type: 'Association', associationType: 'isChildOf', sourceId: module.id, targetId: course.id })),
    },
    credentialSchema: [CLR_CREDENTIAL_SCHEMA],
  };
}

/**
 * The holder-bound copy of a credential (OID4VCI): the wallet's DID as the subject's id, its own id,
 * everything else (status entry included) as published. Unsigned: the caller signs it.
 */
export function boundTo(credential: CredentialDocument, holder: string, id: string): CredentialDocument {
  const { proof: _proof, ...rest } = credential;
  return { ...rest, id, credentialSubject: { id: holder, ...(rest.credentialSubject as CredentialDocument) } };
}

/**
 * Signs the nested AchievementCredentials, then the ClrCredential around them (each one proves
 * itself, as CLR 2.0 asks of the credentials it carries).
 */
export async function signClr(
  unsigned: CredentialDocument,
  sign: (credential: CredentialDocument) => Promise<CredentialDocument>,
): Promise<CredentialDocument> {
  const subject = unsigned.credentialSubject as CredentialDocument & { verifiableCredential: CredentialDocument[] };
  const nested: CredentialDocument[] = [];
  for (const credential of subject.verifiableCredential) nested.push(await sign(credential));
  return sign({ ...unsigned, credentialSubject: { ...subject, verifiableCredential: nested } });
}
