import type { EntityManager } from '@mikro-orm/postgresql';
import { Institution } from '../institutions/institution.entity.js';
import type { StoredFile } from './file.entity.js';
import { PDF } from './file-type.js';

/** What holds a file: deleting it is refused (409) while anything does. */
export type FileHolder = { kind: 'certificate'; fileUuid: string; holderUuid: string } | { kind: 'institution'; fileUuid: string; holderUuid: string };

/**
 * The one "file in use" rule (CONTRACT: a file in use cannot be deleted): a live certificate holds
 * its source file (`used_by_uuid`, set by take/release in file-records.ts), and a live institution
 * holds its badge image (the badge documents' image and the certificates' logo). Template
 * backgrounds and fonts belong here once templates name files.
 *
 * `locked` are the files' rows as read FOR UPDATE by the deletion; the institutions are read after
 * that lock, so an institution naming one of them concurrently (files.requireImage reads FOR SHARE)
 * either commits first and is seen here, or waits and then finds the file deleted.
 */
export async function firstHolder(em: EntityManager, locked: StoredFile[]): Promise<FileHolder | null> {
  const used = locked.find((file) => file.usedAt);
  if (used) return { kind: 'certificate', fileUuid: used.uuid, holderUuid: used.usedByUuid! };
  const images = locked.filter((file) => file.mimeType !== PDF.mimeType).map((file) => file.uuid);
  if (images.length === 0) return null;
  const institution = await em.findOne(Institution, { badgeImageUuid: { $in: images } }, { fields: ['uuid', 'badgeImageUuid'] });
  return institution && { kind: 'institution', fileUuid: institution.badgeImageUuid!, holderUuid: institution.uuid };
}

/** Why the holder keeps the file, and what frees it. */
export function holderMessage(holder: FileHolder): string {
  return holder.kind === 'certificate'
    ? `The file ${holder.fileUuid} is used by certificate ${holder.holderUuid} and cannot be deleted; delete or revoke that certificate first.`
    : `The file ${holder.fileUuid} is the badge image of institution ${holder.holderUuid} and cannot be deleted; give the institution another badge image (or delete it) first.`;
}
