import { formatSeconds } from '../../timestamps.js';
import { recipientIdentity } from '../open-badges.js';
import { CREDENTIAL_CONTEXT, OPEN_BADGE_CREDENTIAL_CONTEXT } from './document-loader.js';
import type { Ob3Urls } from './did-web.js';
import type { StatusPosition } from './status-list.js';

/**
 * Open Badges 3.0 documents (1EdTech OB 3.0 over W3C VC Data Model 2.0) built from plain facts.
 * Pure: signing (credential-signing.ts) adds the proof; nothing here reads or fetches.
 */

export type CredentialDocument = Record<string, unknown>;

export interface ProfileFacts {
  uuid: string;
  name: string;
  website: string | null;
  email: string | null;
  imageUrl: string | null;
}

export interface AchievementFacts {
  courseUuid: string;
  name: string;
  description: string;
  narrative: string;
  creditsAvailable: number | null;
}

/** 1EdTech's published JSON Schema of an AchievementCredential, as OB 3.0 §B.1 asks every credential to name. */
export const ACHIEVEMENT_CREDENTIAL_SCHEMA = {
  id: 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json',
  type: '1EdTechJsonSchemaValidator2019',
};

export interface CredentialFacts {
  certificateUuid: string;
  issuedAt: Date;
  expiresAt: Date | null;
  verificationUrl: string;
  recipientEmail: string;
  salt: string;
  issuer: ProfileFacts;
  achievement: AchievementFacts;
  grade: number | null;
  status: StatusPosition;
}

/** Seconds precision, as the VC data model's dateTimeStamp examples and most verifiers expect. */

const image = (url: string | null) => (url ? { image: { id: url, type: 'Image' } } : {});

/** The issuer as it appears in credentials and at its profile URL (without the contexts). */
export function profile(facts: ProfileFacts, urls: Ob3Urls): CredentialDocument {
  return {
    id: urls.issuerDid(facts.uuid),
    type: ['Profile'],
    name: facts.name,
    // Without a website the profile itself is the issuer's page on this service.
    url: facts.website ?? urls.profile(facts.uuid),
    ...(facts.email ? { email: facts.email } : {}),
    ...image(facts.imageUrl),
  };
}

/** The course as an OB 3.0 Achievement, in credentials and at its id (without the contexts). */
export function achievement(facts: AchievementFacts, imageUrl: string | null, urls: Ob3Urls): CredentialDocument {
  return {
    id: urls.achievement(facts.courseUuid),
    type: ['Achievement'],
    name: facts.name,
    description: facts.description,
    criteria: { narrative: facts.narrative },
    ...image(imageUrl),
    ...(facts.creditsAvailable ? { creditsAvailable: facts.creditsAvailable } : {}),
  };
}

export const achievementDocument = (facts: AchievementFacts, imageUrl: string | null, urls: Ob3Urls): CredentialDocument => ({
  '@context': CREDENTIAL_CONTEXT,
  ...achievement(facts, imageUrl, urls),
});

export const profileDocument = (facts: ProfileFacts, urls: Ob3Urls): CredentialDocument => ({ '@context': CREDENTIAL_CONTEXT, ...profile(facts, urls) });

export function unsignedCredential(facts: CredentialFacts, urls: Ob3Urls): CredentialDocument {
  const { status } = facts;
  const statusListUrl = urls.statusList(facts.issuer.uuid, status.listNumber);
  return {
    '@context': OPEN_BADGE_CREDENTIAL_CONTEXT,
    id: urls.credential(facts.certificateUuid),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: profile(facts.issuer, urls),
    validFrom: formatSeconds(facts.issuedAt),
    ...(facts.expiresAt ? { validUntil: formatSeconds(facts.expiresAt) } : {}),
    name: facts.achievement.name,
    credentialSubject: {
      type: ['AchievementSubject'],
      identifier: [
        {
          type: 'IdentityObject',
          identityType: 'emailAddress',
          hashed: true,
          salt: facts.salt,
          identityHash: recipientIdentity(facts.recipientEmail, facts.salt),
        },
      ],
      achievement: achievement(facts.achievement, facts.issuer.imageUrl, urls),
      ...(facts.grade !== null ? { result: [{ type: ['Result'], value: String(facts.grade) }] } : {}),
    },
    evidence: [{ id: facts.verificationUrl, type: ['Evidence'], name: 'Verification page of the certificate' }],
    credentialStatus: {
      id: `${statusListUrl}#${status.listIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(status.listIndex),
      statusListCredential: statusListUrl,
    },
    credentialSchema: [ACHIEVEMENT_CREDENTIAL_SCHEMA],
  };
}

/**
 * A signed credential as published: `proof` as a list, as 1EdTech's JSON Schema requires (VC 2.0
 * allows one or several). The list is only the wrapper: a Data Integrity proof signs the document
 * without its `proof` and each proof's own options, so credentials stored with a single proof
 * object (before this rule) are shown with a list and still verify.
 */
export function withProofList(credential: CredentialDocument): CredentialDocument {
  const { proof } = credential;
  return proof === undefined || Array.isArray(proof) ? credential : { ...credential, proof: [proof] };
}

/** The DID document of an institution: every key it signed with, the active one first, all for assertions. */
export function didDocument(did: string, keys: { publicKeyMultibase: string }[]): CredentialDocument & { id: string; verificationMethod: { id: string }[] } {
  const methods = keys.map((key) => ({
    id: `${did}#${key.publicKeyMultibase}`,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: key.publicKeyMultibase,
  }));
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: methods,
    assertionMethod: methods.map((method) => method.id),
  };
}
