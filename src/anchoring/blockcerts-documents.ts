import { formatSeconds } from '../timestamps.js';
import { BLOCKCERTS_V3_2_CONTEXT, VC_V2_CONTEXT } from './blockcerts-contexts.js';

/**
 * Blockcerts v3 documents (Blockcerts v3.2 over the W3C VC Data Model 2.0) built from plain facts:
 * the credential a certificate is anchored as, the institution's issuer profile and its revocation
 * list. Pure: the proof is added when the batch is anchored (blockcerts-proof.ts).
 */

export type BlockcertsDocument = Record<string, unknown>;

/**
 * Terms of the credential subject that VC 2.0 and Blockcerts leave undefined, mapped to schema.org
 * so every property is defined by a context (verifiers refuse unmapped fields).
 */
const SUBJECT_TERMS = {
  course: { '@id': 'https://schema.org/hasCourse' },
  institution: { '@id': 'https://schema.org/provider' },
  signedDocuments: { '@id': 'https://schema.org/subjectOf', '@container': '@set' },
} as const;

export const CREDENTIAL_CONTEXT = [VC_V2_CONTEXT, BLOCKCERTS_V3_2_CONTEXT, SUBJECT_TERMS];
export const PROFILE_CONTEXT = [VC_V2_CONTEXT, BLOCKCERTS_V3_2_CONTEXT];

export interface BlockcertsUrls {
  credential(certificateUuid: string): string;
  profile(institutionUuid: string): string;
  revocationList(institutionUuid: string): string;
  download(fileUuid: string): string;
}

export function blockcertsUrls(publicBaseUrl: string): BlockcertsUrls {
  return {
    credential: (uuid) => `${publicBaseUrl}/blockcerts/${uuid}`,
    profile: (uuid) => `${publicBaseUrl}/blockcerts/issuers/${uuid}`,
    revocationList: (uuid) => `${publicBaseUrl}/blockcerts/issuers/${uuid}/revocations`,
    download: (uuid) => `${publicBaseUrl}/api/v1/files/${uuid}/download`,
  };
}

export interface SignedDocumentFacts {
  fileUuid: string;
  /** `certificate` or `transcript`. */
  type: string;
  /** SHA-256 of the file's bytes, hex. */
  sha256: string;
}

export interface AnchoredCredentialFacts {
  certificateUuid: string;
  issuedAt: Date;
  expiresAt: Date | null;
  recipientName: string;
  courseName: string;
  institution: { uuid: string; name: string };
  documents: SignedDocumentFacts[];
}

/** Seconds precision, as the VC data model's dateTimeStamp examples and most verifiers expect. */

/** Subresource Integrity form of a SHA-256 (hex in, `sha256-<base64>` out), as VC 2.0's `digestSRI`. */
export const digestSri = (sha256Hex: string) => `sha256-${Buffer.from(sha256Hex, 'hex').toString('base64')}`;

/** The credential a certificate is anchored as, without its proof. */
export function unsignedCredential(facts: AnchoredCredentialFacts, urls: BlockcertsUrls): BlockcertsDocument {
  return {
    '@context': CREDENTIAL_CONTEXT,
    id: urls.credential(facts.certificateUuid),
    type: ['VerifiableCredential', 'BlockcertsCredential'],
    issuer: urls.profile(facts.institution.uuid),
    validFrom: formatSeconds(facts.issuedAt),
    ...(facts.expiresAt ? { validUntil: formatSeconds(facts.expiresAt) } : {}),
    name: facts.courseName,
    credentialSubject: {
      name: facts.recipientName,
      course: { name: facts.courseName },
      institution: { id: urls.profile(facts.institution.uuid), name: facts.institution.name },
      signedDocuments: facts.documents.map((document) => ({
        id: urls.download(document.fileUuid),
        name: document.type,
        mediaType: 'application/pdf',
        digestSRI: digestSri(document.sha256),
      })),
    },
  };
}

export interface ProfileFacts {
  uuid: string;
  name: string;
  website: string | null;
  email: string | null;
  /** The anchoring address (0x…, lower case) and when it was first used. */
  key: { address: string; createdAt: Date };
}

/** `ecdsa-koblitz-pubkey:0x…`: how a Blockcerts profile names an Ethereum issuing address. */
export const issuingKeyId = (address: string) => `ecdsa-koblitz-pubkey:${address.toLowerCase()}`;

/** The institution's Blockcerts issuer profile. */
export function issuerProfile(facts: ProfileFacts, urls: BlockcertsUrls): BlockcertsDocument {
  return {
    '@context': PROFILE_CONTEXT,
    id: urls.profile(facts.uuid),
    type: ['Profile', 'BlockcertsIssuerProfile'],
    name: facts.name,
    url: facts.website ?? urls.profile(facts.uuid),
    ...(facts.email ? { email: facts.email } : {}),
    publicKey: [{ id: issuingKeyId(facts.key.address), created: formatSeconds(facts.key.createdAt) }],
    revocationList: urls.revocationList(facts.uuid),
  };
}

export interface RevokedEntry {
  certificateUuid: string;
  reason: string;
}

/** The Blockcerts revocation list of an institution: its anchored credentials no longer valid. */
export function revocationList(institutionUuid: string, revoked: RevokedEntry[], urls: BlockcertsUrls): BlockcertsDocument {
  return {
    '@context': PROFILE_CONTEXT,
    id: urls.revocationList(institutionUuid),
    type: 'RevocationList',
    issuer: urls.profile(institutionUuid),
    revokedAssertions: revoked.map((entry) => ({ id: urls.credential(entry.certificateUuid), revocationReason: entry.reason })),
  };
}
