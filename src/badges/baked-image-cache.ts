import { createHash } from 'node:crypto';
import type { PublicContext } from '../context/request-context.js';
import { type BakedImageSlot, storeBakedImage, storedBakedImage } from './badge.repository.js';

/**
 * Raise whenever png-baking.ts or svg-baking.ts changes the bytes they write: every cached image is
 * then baked again on its next request.
 */
export const BAKING_VERSION = 1;

/** What goes into one baked image: whose, which kind of document, the base image (by its content hash) and the JSON. */
export interface BakeSubject extends BakedImageSlot {
  /** SHA-256 of the institution's badge image (StoredFile.hash). */
  imageHash: string;
  json: string;
}

/**
 * The key of everything the baked bytes depend on. Anything that changes the document (a new badge
 * image, another expiry, another public origin, a new baking version) changes the key, so a stale row
 * is never served; a revoked, deleted or disabled badge never gets this far (badge.service.ts).
 */
export function bakedContentKey(subject: BakeSubject): string {
  const hash = createHash('sha256');
  for (const part of [String(BAKING_VERSION), subject.baked, subject.imageType, subject.imageHash, subject.json]) hash.update(part).update('\0');
  return hash.digest('hex');
}

/** The baked image of `subject`: from storage when it was baked before, else baked by `bake` (a badge worker) once and stored. */
export async function bakedOnce({ em }: Pick<PublicContext, 'em'>, subject: BakeSubject, bake: () => Promise<Buffer>): Promise<Buffer> {
  const key = bakedContentKey(subject);
  const stored = await storedBakedImage(em, subject, key);
  if (stored) return stored;
  const bytes = await bake();
  await storeBakedImage(em, subject, key, bytes);
  return bytes;
}
