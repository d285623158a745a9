import type { PublicContext } from '../context/request-context.js';
import { invalid } from '../errors/domain-error.js';
import { files } from '../files/file.service.js';
import { PNG, SVG } from '../files/file-type.js';
import type { BakeInput } from './badge-jobs.js';
import type { BadgeIssuer } from './badge-records.js';
import { BADGE_IMAGE_MAX_BYTES } from './badge-image-limits.js';
import { bakedOnce } from './baked-image-cache.js';

export interface BakedImage {
  bytes: Buffer;
  mimeType: string;
}

async function contentOf(ctx: PublicContext, issuer: BadgeIssuer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await files.open(ctx, issuer.image)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The institution's badge image with `json` baked in, for the certificate's public image URL: baked on
 * a badge worker the first time (charged to the requester), served from storage afterwards. A badge
 * image stored before the size limit existed and over it is refused without a worker touching it.
 */
export async function bakedBadge(
  ctx: PublicContext,
  issuer: BadgeIssuer,
  certificateUuid: string,
  baked: BakeInput['baked'],
  json: string,
): Promise<BakedImage> {
  if (issuer.image.size > BADGE_IMAGE_MAX_BYTES) {
    throw invalid({ image: [`The badge image is larger than ${BADGE_IMAGE_MAX_BYTES / 1024 / 1024} MB; the institution must replace it.`] });
  }
  const imageType = issuer.imageType;
  const subject = { certificateUuid, baked: baked === 'credential' ? baked : ('assertion' as const), imageType, imageHash: issuer.image.hash, json };
  const bytes = await bakedOnce(ctx, subject, async () => ctx.badgeWorkers.bake({ image: await contentOf(ctx, issuer), imageType, baked, json }, ctx.jobOwner));
  return { bytes, mimeType: imageType === 'png' ? PNG.mimeType : SVG.mimeType };
}
