import { type AnchorCheck, checkAnchor } from '../../anchoring/anchor-verification.js';
import type { PublicContext } from '../../context/request-context.js';
import { DomainError, invalid } from '../../errors/domain-error.js';
import { detectFileType, PNG, SVG } from '../../files/file-type.js';
import { nestsDeeperThan } from '../../http/json-body.js';
import type { CredentialCheck, ProofAndStatus } from './credential-proof.js';
import { contextProblem } from './credential-contexts.js';
import { credentialIssuerId } from './credential-facts.js';
import { openBadgeCredentials } from './credential.service.js';
import { ob3Urls } from './did-web.js';

/** Nesting a credential may have; ours is five levels deep. */
const MAX_DEPTH = 24;
/** Canonicalisation costs CPU in proportion to the document; ours are about 4 KB. */
const MAX_CREDENTIAL_BYTES = 64 * 1024;

export interface CredentialVerification {
  verified: boolean;
  credentialId: string | null;
  imageType: 'png' | 'svg' | null;
  checks: ProofAndStatus & {
    /** validFrom ≤ now ≤ validUntil. */
    validityPeriod: CredentialCheck;
    /** The issuer is a DID of this service. */
    issuerKnown: CredentialCheck;
    /** The certificate the credential is for, anchored on the chain (docs/anchoring.md); null with anchoring off or a credential not of this service. */
    anchor: AnchorCheck | null;
  };
}

const unreadable = (message: string) => invalid({ credential: [message] });

export function parseCredential(json: Buffer | string): Record<string, unknown> {
  const bytes = Buffer.isBuffer(json) ? json : Buffer.from(json, 'utf8');
  if (bytes.length > MAX_CREDENTIAL_BYTES) throw unreadable(`The credential may not be greater than ${MAX_CREDENTIAL_BYTES} bytes.`);
  if (nestsDeeperThan(bytes, MAX_DEPTH)) throw unreadable('The credential nests too deeply.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw unreadable('The credential is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw unreadable('The credential must be a JSON object.');
  const missing = missingMembers(parsed as Record<string, unknown>);
  if (missing.length > 0) throw invalid({ credential: missing });
  const contexts = contextProblem(parsed as Record<string, unknown>);
  if (contexts) throw unreadable(contexts);
  return parsed as Record<string, unknown>;
}

/** What a verifiable credential must have before the reference libraries may look at it (they fail on less with their internals). */
function missingMembers(credential: Record<string, unknown>): string[] {
  const context = credential['@context'];
  const types = [credential.type].flat();
  const problems: string[] = [];
  if (!Array.isArray(context) || context.length === 0 || !context.every((entry) => typeof entry === 'string' || isObject(entry))) {
    problems.push('The credential must have an @context list.');
  }
  if (!types.includes('VerifiableCredential')) problems.push('The credential type must include VerifiableCredential.');
  if (typeof credential.issuer !== 'string' && !(isObject(credential.issuer) && typeof credential.issuer.id === 'string')) {
    problems.push('The credential must name its issuer.');
  }
  if (!isObject(credential.credentialSubject)) problems.push('The credential must have a credentialSubject.');
  return problems;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The credential baked into a PNG (iTXt `openbadgecredential`) or SVG (`<openbadges:credential>`), read on a badge worker. */
export async function bakedCredential(ctx: PublicContext, image: Buffer): Promise<{ imageType: 'png' | 'svg'; credential: Record<string, unknown> }> {
  const type = detectFileType(image);
  if (type !== PNG && type !== SVG) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send a credential as JSON, or baked into a PNG or SVG image.');
  const imageType = type === PNG ? 'png' : 'svg';
  const found = await ctx.badgeWorkers.unbake({ image, imageType, baked: 'credential' }, ctx.jobOwner);
  if (!found || !('json' in found)) throw invalid({ file: ['No Open Badges 3.0 credential is baked into this image.'] });
  return { imageType, credential: parseCredential(found.json) };
}

function validityPeriod(credential: Record<string, unknown>, now: Date): CredentialCheck {
  const from = typeof credential.validFrom === 'string' ? new Date(credential.validFrom) : null;
  const until = typeof credential.validUntil === 'string' ? new Date(credential.validUntil) : null;
  if (from && !(from <= now)) return { passed: false, message: `Not valid before ${credential.validFrom as string}.` };
  if (until && !(now <= until)) return { passed: false, message: `Expired at ${credential.validUntil as string}.` };
  return { passed: true, message: null };
}

/**
 * Checks a credential with the reference libraries against this service's own DID documents and
 * status lists (nothing is fetched): proof, revocation status, validity period, issuer. The documents
 * are read here; canonicalisation and signatures run on a badge worker.
 */
export async function verifyCredential(
  ctx: PublicContext,
  credential: Record<string, unknown>,
  now = new Date(),
): Promise<Omit<CredentialVerification, 'imageType'>> {
  const issuerKnown = ob3Urls(ctx.publicBaseUrl).institutionOfDid(credentialIssuerId(credential) ?? '') !== null;
  const documents = await openBadgeCredentials.referencedDocuments(ctx, credential);
  const { proof, status } = await ctx.badgeWorkers.checkProofAndStatus({ credential, documents, now }, ctx.jobOwner);
  const certificateUuid = typeof credential.id === 'string' ? ob3Urls(ctx.publicBaseUrl).certificateOf(credential.id) : null;
  const checks = {
    proof,
    status,
    validityPeriod: validityPeriod(credential, now),
    issuerKnown: { passed: issuerKnown, message: issuerKnown ? null : 'The issuer is not an issuer of this service.' },
    // Pending or unreadable (null) does not decide; a contradicted anchoring (false) does.
    anchor: issuerKnown && certificateUuid ? await checkAnchor(ctx, certificateUuid, { awaitsAnchoring: status.revoked !== true }) : null,
  };
  const verified = Object.values(checks).every((check) => check === null || check.passed !== false);
  return { verified, credentialId: typeof credential.id === 'string' ? credential.id : null, checks };
}
