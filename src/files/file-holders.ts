import type { EntityManager } from '@mikro-orm/postgresql';
import { Institution } from '../institutions/institution.entity.js';
import type { StoredFile } from './file.entity.js';
import { templateDrawingAnyOf } from './file.repository.js';
import { PDF } from './file-type.js';

/** What holds a file: deleting it is refused (409) while anything does. */
export type FileHolder = { kind: 'certificate' | 'institution' | 'template'; fileUuid: string; holderUuid: string };

/**
 * The one "file in use" rule (CONTRACT: a file in use cannot be deleted): a live certificate holds
 * its source file (`used_by_uuid`, set by take/release in file.repository.ts), and a live institution
 * holds its badge image (the badge documents' image and the certificates' logo), and a live
 * template holds the files it draws (its `path`, background, images, fonts: templates/layout-files.ts).
 *
 * `locked` are the files' rows as read FOR UPDATE by the deletion; the institutions are read after
 * that lock, so an institution naming one of them concurrently (files.requireImage reads FOR SHARE)
 * either commits first and is seen here, or waits and then finds the file deleted; so do templates
 * (their files are read FOR SHARE when the design is written).
 */
export async function firstHolder(em: EntityManager, locked: StoredFile[]): Promise<FileHolder | null> {
  const used = locked.find((file) => file.usedAt);
  if (used) return { kind: 'certificate', fileUuid: used.uuid, holderUuid: used.usedByUuid! };
  const images = locked.filter((file) => file.mimeType !== PDF.mimeType).map((file) => file.uuid);
  const institution = images.length === 0 ? null : await em.findOne(Institution, { badgeImageUuid: { $in: images } }, { fields: ['uuid', 'badgeImageUuid'] });
  if (institution) return { kind: 'institution', fileUuid: institution.badgeImageUuid!, holderUuid: institution.uuid };
  return templateHolder(em, locked);
}

/** A live template of the tenant that draws one of the files: its `path` (`files/{uuid}`), any `file_uuid` of its design_config, a text's `font`. */
async function templateHolder(em: EntityManager, locked: StoredFile[]): Promise<FileHolder | null> {
  if (locked.length === 0) return null;
  const fileUuids = locked.map((file) => file.uuid);
  const row = await templateDrawingAnyOf(em, fileUuids, locked[0]!.tenant.uuid);
  return row ? { kind: 'template', fileUuid: row.file_uuid, holderUuid: row.uuid } : null;
}

/** Why the holder keeps the file, and what frees it. */
export function holderMessage(holder: FileHolder): string {
  if (holder.kind === 'certificate') {
    return `The file ${holder.fileUuid} is used by certificate ${holder.holderUuid} and cannot be deleted; delete or revoke that certificate first.`;
  }
  if (holder.kind === 'template') {
    return `The file ${holder.fileUuid} is drawn by certificate template ${holder.holderUuid} and cannot be deleted; delete that template first.`;
  }
  return `The file ${holder.fileUuid} is the badge image of institution ${holder.holderUuid} and cannot be deleted; give the institution another badge image (or delete it) first.`;
}
