import { checkProofAndStatus, type ProofAndStatus, type ProofCheckInput } from './v3/credential-proof.js';
import { BakingError, CREDENTIAL_KEYWORD, extractFromPng } from './png-baking.js';
import { extractCredentialFromSvg, extractFromSvg } from './svg-baking.js';

/** What a baked image carries: JSON, a hosted URL (Open Badges 2.0), nothing, or why it cannot be read. */
export type Unbaked = { json: string } | { url: string } | null | { refused: string };

export interface UnbakeInput {
  image: Uint8Array;
  imageType: 'png' | 'svg';
  /** An Open Badges 2.0 assertion, or a 3.0 credential (§5.3: its own PNG keyword and SVG element). */
  baked: 'assertion' | 'credential';
}

/** A unit of badge work on untrusted input, run on a worker thread (see badge-thread.ts). */
export type BadgeJob = { kind: 'unbake'; input: UnbakeInput } | { kind: 'check'; input: ProofCheckInput };

export type BadgeJobResult = Unbaked | ProofAndStatus;

export function runBadgeJob(job: BadgeJob): Promise<BadgeJobResult> {
  return job.kind === 'unbake' ? Promise.resolve(unbakeImage(job.input)) : checkProofAndStatus(job.input);
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
