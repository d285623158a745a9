import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CertificateDocument } from '../certificates/certificate-document.entity.js';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import { effectiveStatus } from '../certificates/certificate.service.js';
import { displayName, verificationUrl } from '../certificates/issuance.js';
import { SigningIdentity } from '../certificates/signing-identity.entity.js';
import { Course } from '../courses/course.entity.js';
import { LIVE_FILTER, TENANT_FILTER } from '../db/tenant-scope.js';
import { isUuid } from '../db/uuid.js';
import { inspectSignedPdf } from '../documents/index.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { Institution } from '../institutions/institution.entity.js';
import type { VerificationFacts } from './verification-facts.js';

/** Public reads cross tenants by an unguessable uuid; these options say so explicitly, in one place. */
const ACROSS_TENANTS = { filters: { [TENANT_FILTER]: false } } as const;
const ACROSS_TENANTS_INCLUDING_DELETED = { filters: { [TENANT_FILTER]: false, [LIVE_FILTER]: false } } as const;

/** A certificate the public may see: live and issued at some point (drafts do not exist publicly). */
async function publicCertificate(em: EntityManager, uuid: string): Promise<Certificate | null> {
  if (!isUuid(uuid)) return null;
  return em.findOne(Certificate, { uuid, status: { $ne: CertificateStatus.draft } }, ACROSS_TENANTS);
}

async function documentsOf(em: EntityManager, certificate: Certificate) {
  const documents = await em.find(CertificateDocument, { certificate }, { ...ACROSS_TENANTS, populate: ['file'] });
  return documents.map((doc) => ({ type: doc.type, file: doc.file.getEntity() as StoredFile }));
}

function factsOf(certificate: Certificate, institution: Institution, course: Course, documents: { type: string; file: StoredFile }[], publicBaseUrl: string): VerificationFacts {
  const status = effectiveStatus(certificate);
  return {
    uuid: certificate.uuid,
    state: status === CertificateStatus.revoked ? 'revoked' : status === CertificateStatus.expired ? 'expired' : 'valid',
    recipientName: displayName({ name: certificate.recipientName!, socialName: certificate.recipientSocialName }),
    institutionName: institution.name,
    courseName: course.name,
    issuedAt: certificate.issuedAt!,
    expiresAt: certificate.expiresAt ?? null,
    revokedAt: certificate.revokedAt ?? null,
    revocationReason: certificate.revocationReason ?? null,
    verificationUrl: verificationUrl(certificate, publicBaseUrl),
    documents: documents
      .filter((doc) => doc.type === 'certificate' || doc.type === 'transcript')
      .map((doc) => ({ type: doc.type as 'certificate' | 'transcript', name: doc.file.originalName, url: downloadUrl(publicBaseUrl, doc.file.uuid) })),
  };
}

/** Everything public about an issued certificate, read once. */
async function loadPublic(em: EntityManager, uuid: string) {
  const certificate = await publicCertificate(em, uuid);
  if (!certificate) return null;
  const [institution, course, documents] = await Promise.all([
    em.findOneOrFail(Institution, { uuid: certificate.institution.uuid }, ACROSS_TENANTS_INCLUDING_DELETED),
    em.findOneOrFail(Course, { uuid: certificate.course.uuid }, ACROSS_TENANTS_INCLUDING_DELETED),
    documentsOf(em, certificate),
  ]);
  return { certificate, institution, course, documents };
}

/** What the public verification page and JSON say about a certificate; null when there is no such issued certificate. */
export async function verificationFacts(em: EntityManager, uuid: string, publicBaseUrl: string): Promise<VerificationFacts | null> {
  const loaded = await loadPublic(em, uuid);
  return loaded && factsOf(loaded.certificate, loaded.institution, loaded.course, loaded.documents, publicBaseUrl);
}

export interface DocumentVerdict {
  signed: boolean;
  /** The signature matches the bytes it covers. */
  intact: boolean;
  /** Nothing was added after the signature. */
  coversWholeFile: boolean;
  /** Signed with a key this service holds for the certificate's institution. */
  signedByIssuer: boolean;
  /** Byte for byte the document this service issued. */
  matchesIssuedDocument: boolean;
  documentType: 'certificate' | 'transcript' | null;
  /** The certificate uuid written into the document, whether or not it can be trusted. */
  claimedCertificateUuid: string | null;
  signer: { commonName: string | null; fingerprintSha256: string | null; signedAt: Date | null };
  /** The certificate's facts, only when the issuer's key signed the document. */
  certificate: VerificationFacts | null;
}

/** Answers whether an uploaded PDF is an intact document signed by this service, and for which certificate. */
export async function verifyDocument(em: EntityManager, pdf: Buffer, publicBaseUrl: string): Promise<DocumentVerdict> {
  const inspection = await inspectSignedPdf(pdf);
  const loaded = inspection.credentialUuid ? await loadPublic(em, inspection.credentialUuid) : null;
  let signedByIssuer = false;
  let matched: { type: string } | undefined;
  if (loaded) {
    const identities = await em.find(SigningIdentity, { institution: loaded.certificate.institution.uuid }, ACROSS_TENANTS_INCLUDING_DELETED);
    signedByIssuer = inspection.intact && identities.some((identity) => identity.fingerprintSha256 === inspection.certificateFingerprintSha256);
    const hash = createHash('sha256').update(pdf).digest('hex');
    matched = loaded.documents.find((doc) => doc.file.hash === hash && doc.type !== 'source');
  }
  const facts = loaded && factsOf(loaded.certificate, loaded.institution, loaded.course, loaded.documents, publicBaseUrl);
  return {
    signed: inspection.signed,
    intact: inspection.intact,
    coversWholeFile: inspection.coversWholeFile,
    signedByIssuer,
    matchesIssuedDocument: !!matched,
    documentType: (matched?.type as 'certificate' | 'transcript' | undefined) ?? null,
    claimedCertificateUuid: inspection.credentialUuid ?? null,
    signer: {
      commonName: inspection.signerCommonName ?? null,
      fingerprintSha256: inspection.certificateFingerprintSha256 ?? null,
      signedAt: inspection.signedAt ?? null,
    },
    certificate: signedByIssuer ? facts : null,
  };
}
