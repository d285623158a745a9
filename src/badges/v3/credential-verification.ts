import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import * as vc from '@digitalbazaar/vc';
import type { PublicContext } from '../../context/request-context.js';
import { DomainError, invalid } from '../../errors/domain-error.js';
import { detectFileType, PNG, SVG } from '../../files/file-type.js';
import { nestsDeeperThan } from '../../http/json-body.js';
import { BakingError, CREDENTIAL_KEYWORD, extractFromPng } from '../png-baking.js';
import { extractCredentialFromSvg } from '../svg-baking.js';
import { verifyingSuite } from './credential-signing.js';
import { credentialIssuerId } from './credential-facts.js';
import { openBadgeCredentials } from './credential.service.js';
import { ob3Urls } from './did-web.js';

/** Nesting a credential may have; ours is five levels deep. */
const MAX_DEPTH = 24;
/** Canonicalisation costs CPU in proportion to the document; ours are about 4 KB. */
const MAX_CREDENTIAL_BYTES = 64 * 1024;

export interface CredentialCheck {
  passed: boolean;
  message: string | null;
}

export interface CredentialVerification {
  verified: boolean;
  credentialId: string | null;
  imageType: 'png' | 'svg' | null;
  checks: {
    /** The Data Integrity proof, by a key the issuer's DID document lists for assertions. */
    proof: CredentialCheck;
    /** The revocation entry of the issuer's Bitstring Status List. */
    status: CredentialCheck & { revoked: boolean | null };
    /** validFrom ≤ now ≤ validUntil. */
    validityPeriod: CredentialCheck;
    /** The issuer is a DID of this service. */
    issuerKnown: CredentialCheck;
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
  return parsed as Record<string, unknown>;
}

/** The credential baked into a PNG (iTXt `openbadgecredential`) or SVG (`<openbadges:credential>`). */
export function bakedCredential(image: Buffer): { imageType: 'png' | 'svg'; credential: Record<string, unknown> } {
  const type = detectFileType(image);
  let json: string | null = null;
  try {
    if (type === PNG) {
      const found = extractFromPng(image, CREDENTIAL_KEYWORD);
      json = found && 'json' in found ? found.json : null;
    } else if (type === SVG) json = extractCredentialFromSvg(image.toString('utf8'));
    else throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send a credential as JSON, or baked into a PNG or SVG image.');
  } catch (error) {
    if (error instanceof BakingError) throw invalid({ file: [error.message] });
    throw error;
  }
  if (!json) throw invalid({ file: ['No Open Badges 3.0 credential is baked into this image.'] });
  return { imageType: type === PNG ? 'png' : 'svg', credential: parseCredential(json) };
}

const passed = (passed: boolean, message: string | null = null): CredentialCheck => ({ passed, message });

function validityPeriod(credential: Record<string, unknown>, now: Date): CredentialCheck {
  const from = typeof credential.validFrom === 'string' ? new Date(credential.validFrom) : null;
  const until = typeof credential.validUntil === 'string' ? new Date(credential.validUntil) : null;
  if (from && !(from <= now)) return passed(false, `Not valid before ${credential.validFrom as string}.`);
  if (until && !(now <= until)) return passed(false, `Expired at ${credential.validUntil as string}.`);
  return passed(true);
}

/**
 * Checks a credential with the reference libraries against this service's own DID documents and
 * status lists (nothing is fetched): proof, revocation status, validity period, issuer.
 */
export async function verifyCredential(
  ctx: PublicContext,
  credential: Record<string, unknown>,
  now = new Date(),
): Promise<Omit<CredentialVerification, 'imageType'>> {
  const issuerKnown = ob3Urls(ctx.publicBaseUrl).institutionOfDid(credentialIssuerId(credential) ?? '') !== null;
  const documentLoader = openBadgeCredentials.loader(ctx);
  const suite = verifyingSuite();
  // Proof first, at validFrom: the validity period is its own check below.
  const at = typeof credential.validFrom === 'string' && !Number.isNaN(Date.parse(credential.validFrom)) ? new Date(credential.validFrom) : now;
  const proof = await vc.verifyCredential({ credential, suite, documentLoader, now: at, checkStatus: async () => ({ verified: true }) });
  const proofError = proof.error?.errors?.[0] ?? proof.error ?? proof.results?.find((result) => !result.verified)?.error;
  const status = proof.verified ? await checkStatus({ credential, documentLoader, suite }) : null;
  const revoked = status?.verified ? (status.results?.some((result) => result.status) ?? false) : null;
  const checks = {
    proof: passed(proof.verified, proof.verified ? null : (proofError?.message ?? 'The proof does not verify.')),
    status: {
      ...passed(revoked === false, revoked ? 'Revoked by the issuer.' : revoked === null ? (status?.error?.message ?? 'Not checked: the proof failed.') : null),
      revoked,
    },
    validityPeriod: validityPeriod(credential, now),
    issuerKnown: passed(issuerKnown, issuerKnown ? null : 'The issuer is not an issuer of this service.'),
  };
  const verified = Object.values(checks).every((check) => check.passed);
  return { verified, credentialId: typeof credential.id === 'string' ? credential.id : null, checks };
}
