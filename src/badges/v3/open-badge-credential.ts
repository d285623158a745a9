import { formatTimestamp } from '../../graphql/scalars.js';
import { recipientIdentity } from '../open-badges.js';
import { CREDENTIAL_CONTEXT } from './document-loader.js';
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
  imageUrl: string | null;
}

export interface CredentialFacts {
  certificateUuid: string;
  issuedAt: Date;
  expiresAt: Date | null;
  verificationUrl: string;
  recipientEmail: string;
  salt: string;
  issuer: ProfileFacts;
  achievement: { courseUuid: string; name: string; description: string; narrative: string; creditsAvailable: number | null };
  grade: number | null;
  status: StatusPosition;
}

/** Seconds precision, as the VC data model's dateTimeStamp examples and most verifiers expect. */
const timestamp = (date: Date) => formatTimestamp(date).replace(/\.\d+Z$/, 'Z');

const image = (url: string | null) => (url ? { image: { id: url, type: 'Image' } } : {});

/** The issuer as it appears in credentials and at its profile URL (without the contexts). */
export function profile(facts: ProfileFacts, urls: Ob3Urls): CredentialDocument {
  return {
    id: urls.issuerDid(facts.uuid),
    type: ['Profile'],
    name: facts.name,
    // Without a website the profile itself is the issuer's page on this service.
    url: facts.website ?? urls.profile(facts.uuid),
    ...image(facts.imageUrl),
  };
}

export const profileDocument = (facts: ProfileFacts, urls: Ob3Urls): CredentialDocument => ({ '@context': CREDENTIAL_CONTEXT, ...profile(facts, urls) });

export function unsignedCredential(facts: CredentialFacts, urls: Ob3Urls): CredentialDocument {
  const { achievement, status } = facts;
  const statusListUrl = urls.statusList(facts.issuer.uuid, status.listNumber);
  return {
    '@context': CREDENTIAL_CONTEXT,
    id: urls.credential(facts.certificateUuid),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: profile(facts.issuer, urls),
    validFrom: timestamp(facts.issuedAt),
    ...(facts.expiresAt ? { validUntil: timestamp(facts.expiresAt) } : {}),
    name: achievement.name,
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
      achievement: {
        id: urls.achievement(achievement.courseUuid),
        type: ['Achievement'],
        name: achievement.name,
        description: achievement.description,
        criteria: { narrative: achievement.narrative },
        ...image(facts.issuer.imageUrl),
        ...(achievement.creditsAvailable ? { creditsAvailable: achievement.creditsAvailable } : {}),
      },
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
  };
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
