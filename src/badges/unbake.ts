import { isDeepStrictEqual } from 'node:util';
import type { PublicContext } from '../context/request-context.js';
import { DomainError, invalid } from '../errors/domain-error.js';
import { detectFileType, PNG, SVG } from '../files/file-type.js';
import { nestsDeeperThan } from '../http/json-body.js';
import { badges } from './badge.service.js';
import { WITHDRAWN_REASON } from './badge-records.js';
import { badgeUrls } from './badge-urls.js';
import type { BadgeDocument } from './open-badges.js';

/** Nesting a baked assertion may have; ours is three levels deep. */
const MAX_DEPTH = 16;

export interface UnbakeResult {
  imageType: 'png' | 'svg';
  /** The `id` the image names: the hosted assertion, the only source of truth (hosted verification). */
  assertionId: string;
  /** valid, expired, revoked or withdrawn (deleted) for an assertion of this service (public-standing.ts); unknown for any other id. */
  status: 'valid' | 'expired' | 'revoked' | 'withdrawn' | 'unknown';
  revocationReason: string | null;
  /** The JSON baked into the image; null when the image carries only the hosted URL. */
  bakedAssertion: BadgeDocument | null;
  /** The assertion as issued (what its id hosted before any revocation); null when unknown or withdrawn. */
  hostedAssertion: BadgeDocument | null;
  /** Whether the baked JSON equals the hosted assertion; null when there is nothing to compare. */
  matchesHosted: boolean | null;
  /** Top-level properties whose baked value differs from the hosted one. */
  mismatchedProperties: string[];
}

const unbakeable = (message: string) => invalid({ file: [message] });

/** What the image carries, read on a badge worker. */
async function bakedContent(ctx: PublicContext, image: Buffer): Promise<{ imageType: 'png' | 'svg'; found: { json: string } | { url: string } | null }> {
  const type = detectFileType(image);
  if (type !== PNG && type !== SVG) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send a baked badge: a PNG or SVG image.');
  const imageType = type === PNG ? 'png' : 'svg';
  return { imageType, found: await ctx.badgeWorkers.unbake({ image, imageType, baked: 'assertion' }, ctx.jobOwner) };
}

function parseAssertion(json: string): BadgeDocument {
  if (nestsDeeperThan(Buffer.from(json, 'utf8'), MAX_DEPTH)) throw unbakeable('The baked assertion nests too deeply.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw unbakeable('The baked assertion is not JSON (a signed badge cannot be checked here).');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as BadgeDocument).id !== 'string')
    throw unbakeable('The baked assertion has no id.');
  return parsed as BadgeDocument;
}

function differences(baked: BadgeDocument, hosted: BadgeDocument): string[] {
  const keys = [...new Set([...Object.keys(hosted), ...Object.keys(baked)])];
  return keys.filter((key) => !isDeepStrictEqual(baked[key], hosted[key]));
}

/**
 * Reads the assertion baked into an image and checks it against what this service hosts at its id.
 * The baked copy only names the hosted assertion (hosted verification); any difference is reported.
 */
export async function unbake(ctx: PublicContext, image: Buffer): Promise<UnbakeResult> {
  const { imageType, found } = await bakedContent(ctx, image);
  if (!found) throw unbakeable('No Open Badges assertion is baked into this image.');
  const bakedAssertion = 'json' in found ? parseAssertion(found.json) : null;
  const assertionId = bakedAssertion ? (bakedAssertion.id as string) : (found as { url: string }).url;
  const certificateUuid = badgeUrls(ctx.publicBaseUrl).certificateOf(assertionId);
  const known = certificateUuid ? await badges.issued(ctx, certificateUuid) : null;
  const base = { imageType, assertionId, bakedAssertion };
  const nothingHosted = { hostedAssertion: null, matchesHosted: null, mismatchedProperties: [] };
  if (!known) return { ...base, status: 'unknown', revocationReason: null, ...nothingHosted };
  if (!known.issued) return { ...base, status: 'withdrawn', revocationReason: WITHDRAWN_REASON, ...nothingHosted };
  const mismatched = bakedAssertion ? differences(bakedAssertion, known.issued) : [];
  return {
    ...base,
    status: known.record.standing,
    revocationReason: known.record.certificate.revocationReason ?? null,
    hostedAssertion: known.issued,
    matchesHosted: bakedAssertion ? mismatched.length === 0 : null,
    mismatchedProperties: mismatched,
  };
}
