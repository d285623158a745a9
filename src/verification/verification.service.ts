import type { EntityManager } from '@mikro-orm/postgresql';
import { type AnchorCheck, anchorState, checkAnchor } from '../anchoring/anchor-verification.js';
import { CertificateDocument } from '../certificates/certificate-document.entity.js';
import { Certificate, CertificateStatus } from '../certificates/certificate.entity.js';
import { displayName, verificationUrl } from '../certificates/certificate-rules.js';
import { isPubliclyShown, publicStanding } from '../certificates/public-standing.js';
import { SigningIdentity } from '../certificates/signing-identity.entity.js';
import { Course } from '../courses/course.entity.js';
import { acrossTenants } from '../db/tenant-scope.js';
import { isUuid } from '../db/uuid.js';
import type { PublicContext } from '../context/request-context.js';
import { StoredFile } from '../files/file.entity.js';
import { downloadUrl } from '../files/file-runtime.js';
import { Institution } from '../institutions/institution.entity.js';
import { decideVerdict, signedByUs, type Verdict } from './document-verdict.js';
import type { VerificationFacts } from './verification-facts.js';

/** Public reads cross tenants by an unguessable uuid; these options say so explicitly, in one place. */

async function documentsOf(em: EntityManager, certificate: Certificate) {
  const documents = await em.find(CertificateDocument, { certificate }, { ...acrossTenants(), populate: ['file'] });
  return documents.map((doc) => ({ type: doc.type, file: doc.file.getEntity() as StoredFile }));
}

async function factsOf(ctx: PublicContext, loaded: ShownCertificate): Promise<VerificationFacts> {
  const { publicBaseUrl } = ctx;
  const { certificate, institution, course, documents, standing } = loaded;
  return {
    uuid: certificate.uuid,
    state: standing,
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
    anchor: await anchorState(ctx, certificate.uuid, standing !== 'revoked'),
  };
}

/** A certificate the public is shown, with what its facts are made of. */
interface ShownCertificate {
  standing: 'valid' | 'revoked' | 'expired';
  certificate: Certificate;
  institution: Institution;
  course: Course;
  documents: { type: string; file: StoredFile }[];
}

type LoadedStanding = ShownCertificate | { standing: 'absent' | 'withdrawn'; certificate: Certificate | null };

/**
 * Everything public about a certificate, read once: deleted rows too, because a deleted certificate
 * or institution is `withdrawn` (public-standing.ts), not unknown.
 */
async function loadPublic(em: EntityManager, uuid: string): Promise<LoadedStanding> {
  const certificate = isUuid(uuid) ? await em.findOne(Certificate, { uuid }, acrossTenants('deleted too')) : null;
  if (!certificate || certificate.status === CertificateStatus.draft) return { standing: 'absent', certificate: null };
  const [institution, course, documents] = await Promise.all([
    em.findOneOrFail(Institution, { uuid: certificate.institution.uuid }, acrossTenants('deleted too')),
    em.findOneOrFail(Course, { uuid: certificate.course.uuid }, acrossTenants('deleted too')),
    documentsOf(em, certificate),
  ]);
  const standing = publicStanding(certificate, institution);
  return isPubliclyShown(standing) ? { standing, certificate, institution, course, documents } : { standing, certificate };
}

/**
 * What the public verification page and JSON say about a certificate: its facts, `withdrawn` (deleted,
 * or its institution deleted: nothing more is told), or null when there is no such issued certificate.
 */
export async function verificationFacts(ctx: PublicContext, uuid: string): Promise<VerificationFacts | 'withdrawn' | null> {
  const loaded = await loadPublic(ctx.em, uuid);
  if ('documents' in loaded) return factsOf(ctx, loaded);
  return loaded.standing === 'withdrawn' ? 'withdrawn' : null;
}

export interface DocumentVerdict {
  verdict: Verdict;
  /** Which issued document the file is; only when authentic. */
  documentType: 'certificate' | 'transcript' | null;
  /** The certificate uuid written into the file's signed revision: a claim, true only when authentic. */
  claimedCertificateUuid: string | null;
  signatures: {
    intact: boolean;
    coversWholeFile: boolean;
    /** Made with a key this service holds for an institution. */
    signedByIssuer: boolean;
    /** Only when authentic: anyone can put any name into a self-made certificate. */
    signerCommonName: string | null;
    fingerprintSha256: string | null;
    signedAt: Date | null;
  }[];
  /** The certificate's facts, only when authentic. */
  certificate: VerificationFacts | null;
  /**
   * Only when authentic: the certificate anchored on the chain and its anchored credential listing
   * this file's SHA-256 (checkAnchor); null with anchoring off.
   */
  anchor: AnchorCheck | null;
}

/** Signing certificates this service holds among the given fingerprints: fingerprint → institution uuid. */
async function ourKeys(em: EntityManager, fingerprints: string[]): Promise<Map<string, string>> {
  if (fingerprints.length === 0) return new Map();
  const identities = await em.find(SigningIdentity, { fingerprintSha256: { $in: fingerprints } }, acrossTenants('deleted too'));
  return new Map(identities.map((identity) => [identity.fingerprintSha256, identity.institution.uuid]));
}

/**
 * Answers whether an uploaded PDF is a document this service issued, unchanged. The PDF is parsed
 * on a document worker; this thread only looks up what the file claims. Takes `pdf` (an upload read for
 * this request): its memory is handed to the worker, so it reads as empty afterwards.
 */
export async function verifyDocument(ctx: PublicContext, pdf: Buffer): Promise<DocumentVerdict> {
  const { em, documents, jobOwner } = ctx;
  const inspection = await documents.inspect(pdf, jobOwner, { handOver: true });
  const fingerprints = [...new Set(inspection.signatures.flatMap((signature) => signature.certificateFingerprintSha256 ?? []))];
  const keys = await ourKeys(em, fingerprints);
  const loaded = !inspection.refused && inspection.credentialUuid ? await loadPublic(em, inspection.credentialUuid) : null;
  const shown = loaded && 'documents' in loaded ? loaded : null;
  const matched = shown?.documents.find((doc) => doc.file.hash === inspection.sha256 && doc.type !== 'source');
  const claimed = loaded?.certificate
    ? { institutionUuid: loaded.certificate.institution.uuid, matchesIssuedDocument: matched !== undefined, withdrawn: loaded.standing === 'withdrawn' }
    : undefined;
  const verdict = decideVerdict({ inspection, ourKeys: keys, claimed });
  const authentic = verdict === 'authentic' && shown;
  return {
    verdict,
    documentType: authentic ? ((matched?.type as 'certificate' | 'transcript' | undefined) ?? null) : null,
    claimedCertificateUuid: inspection.credentialUuid ?? null,
    signatures: inspection.signatures.map((signature) => {
      const ours = signedByUs(signature, keys);
      return {
        intact: signature.intact,
        coversWholeFile: signature.coversWholeFile,
        signedByIssuer: ours,
        signerCommonName: authentic && ours ? (signature.signerCommonName ?? null) : null,
        fingerprintSha256: signature.certificateFingerprintSha256 ?? null,
        signedAt: signature.signedAt ?? null,
      };
    }),
    certificate: authentic ? await factsOf(ctx, authentic) : null,
    anchor: authentic
      ? await checkAnchor(ctx, authentic.certificate.uuid, { documentSha256: inspection.sha256, awaitsAnchoring: authentic.standing !== 'revoked' })
      : null,
  };
}
