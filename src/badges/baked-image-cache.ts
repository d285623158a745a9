import { createHash } from 'node:crypto';
import type { PublicContext } from '../context/request-context.js';
import type { BakedImageType } from './badge-urls.js';

/**
 * Raise whenever png-baking.ts or svg-baking.ts changes the bytes they write: every cached image is
 * then baked again on its next request.
 */
export const BAKING_VERSION = 1;

/** What goes into one baked image: whose, which kind of document, the base image (by its content hash) and the JSON. */
export interface BakeSubject {
  certificateUuid: string;
  baked: 'assertion' | 'credential';
  imageType: BakedImageType;
  /** SHA-256 of the institution's badge image (StoredFile.hash). */
  imageHash: string;
  json: string;
}

const FIND = `select bytes from baked_badge_images where certificate_uuid = ? and baked = ? and image_type = ? and content_key = ?`;

// Concurrent first requests may both bake; the last write wins, and both wrote the same bytes.
const STORE = `
  insert into baked_badge_images (certificate_uuid, baked, image_type, content_key, bytes, created_at) values (?, ?, ?, ?, ?, now())
  on conflict (certificate_uuid, baked, image_type) do update set content_key = excluded.content_key, bytes = excluded.bytes, created_at = now()`;

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
  const identity = [subject.certificateUuid, subject.baked, subject.imageType];
  const connection = em.getConnection();
  const [stored] = await connection.execute<{ bytes: Buffer }[]>(FIND, [...identity, key], 'all');
  if (stored) return stored.bytes;
  const bytes = await bake();
  await connection.execute(STORE, [...identity, key, bytes], 'run');
  return bytes;
}
