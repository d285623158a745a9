import { checkProofAndStatus, type ProofAndStatus, type ProofCheckInput } from './v3/credential-proof.js';
import { BakingError, bakePng, CREDENTIAL_KEYWORD, extractFromPng } from './png-baking.js';
import { bakeSvg, bakeSvgCredential, extractCredentialFromSvg, extractFromSvg } from './svg-baking.js';

/** What a baked image carries: JSON, a hosted URL (Open Badges 2.0), nothing, or why it cannot be read. */
export type Unbaked = { json: string } | { url: string } | null | { refused: string };

export interface UnbakeInput {
  image: Uint8Array;
  imageType: 'png' | 'svg';
  /** An Open Badges 2.0 assertion, or a 3.0 credential (§5.3: its own PNG keyword and SVG element). */
  baked: 'assertion' | 'credential';
}

export interface BakeInput {
  /** The institution's badge image, as a tenant uploaded it. */
  image: Uint8Array;
  imageType: 'png' | 'svg';
  /** An Open Badges 2.0 assertion (with its id, for the SVG `verify` attribute), or a 3.0 credential. */
  baked: { assertionId: string } | 'credential';
  json: string;
}

/** A unit of badge work on untrusted input, run on a worker thread (see badge-thread.ts). */
export type BadgeJob = { kind: 'unbake'; input: UnbakeInput } | { kind: 'bake'; input: BakeInput } | { kind: 'check'; input: ProofCheckInput };

export type BadgeJobResult = Unbaked | Baked | ProofAndStatus;

export function runBadgeJob(job: BadgeJob): Promise<BadgeJobResult> {
  if (job.kind === 'unbake') return Promise.resolve(unbakeImage(job.input));
  if (job.kind === 'bake') return Promise.resolve(bakeImage(job.input));
  return checkProofAndStatus(job.input);
}

export type Baked = { bytes: Uint8Array } | { refused: string };

/** The image with `json` baked in (Open Badges Baking 1.0, or OB 3.0 §5.3 for a credential). */
export function bakeImage({ image, imageType, baked, json }: BakeInput): Baked {
  try {
    if (imageType === 'png') return { bytes: bakePng(image, json, baked === 'credential' ? CREDENTIAL_KEYWORD : undefined) };
    const svg = Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString('utf8');
    return { bytes: Buffer.from(baked === 'credential' ? bakeSvgCredential(svg, json) : bakeSvg(svg, baked.assertionId, json), 'utf8') };
  } catch (error) {
    if (error instanceof BakingError) return { refused: error.message };
    throw error;
  }
}

/** Parses the image (PNG chunks with their CRCs, or the whole SVG as XML) for what is baked into it. */
export function unbakeImage({ image, imageType, baked }: UnbakeInput): Unbaked {
  try {
    if (imageType === 'png') return extractFromPng(image, baked === 'credential' ? CREDENTIAL_KEYWORD : undefined);
    const svg = Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString('utf8');
    if (baked === 'assertion') return extractFromSvg(svg);
    const json = extractCredentialFromSvg(svg);
    return json ? { json } : null;
  } catch (error) {
    if (error instanceof BakingError) return { refused: error.message };
    throw error;
  }
}
