import type { EntityManager } from '@mikro-orm/postgresql';
import type { BakedImageType } from './badge-urls.js';

const SALT_INSERT = `insert into badge_assertion_salts (certificate_uuid, salt, created_at) values (?, ?, now()) on conflict (certificate_uuid) do nothing`;

/** Stores the certificate's recipient salt unless one was drawn already (the first insert wins). */
export async function insertSaltUnlessDrawn(em: EntityManager, certificateUuid: string, salt: string): Promise<void> {
  await em.getConnection().execute(SALT_INSERT, [certificateUuid, salt], 'run');
}

/** Which baked image: whose, which kind of document, which format (one row each). */
export interface BakedImageSlot {
  certificateUuid: string;
  baked: 'assertion' | 'credential';
  imageType: BakedImageType;
}

const FIND = `select bytes from baked_badge_images where certificate_uuid = ? and baked = ? and image_type = ? and content_key = ?`;

// Concurrent first requests may both bake; the last write wins, and both wrote the same bytes.
const STORE = `
  insert into baked_badge_images (certificate_uuid, baked, image_type, content_key, bytes, created_at) values (?, ?, ?, ?, ?, now())
  on conflict (certificate_uuid, baked, image_type) do update set content_key = excluded.content_key, bytes = excluded.bytes, created_at = now()`;

const identityOf = (slot: BakedImageSlot) => [slot.certificateUuid, slot.baked, slot.imageType];

/** The stored bytes of the slot when they were baked from exactly `contentKey`. */
export async function storedBakedImage(em: EntityManager, slot: BakedImageSlot, contentKey: string): Promise<Buffer | undefined> {
  const [stored] = await em.getConnection().execute<{ bytes: Buffer }[]>(FIND, [...identityOf(slot), contentKey], 'all');
  return stored?.bytes;
}

/** Stores the slot's bytes baked from `contentKey`, replacing what it held. */
export async function storeBakedImage(em: EntityManager, slot: BakedImageSlot, contentKey: string, bytes: Buffer): Promise<void> {
  await em.getConnection().execute(STORE, [...identityOf(slot), contentKey, bytes], 'run');
}
